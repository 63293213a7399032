package dev.idempotency.store;

import dev.idempotency.store.Reservation.Outcome;
import dev.idempotency.store.jdbc.JdbcIdempotencyStore;
import dev.idempotency.store.testing.Await;
import dev.idempotency.store.testing.VersionOneSchema;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The key's life (KeyLifeContract) and what only a JDBC store has (its schema and its versions, pools, group commit,
 * rows it cannot read), run against each database by a thin subclass.
 */
abstract class JdbcStoreContract extends KeyLifeContract<JdbcIdempotencyStore> {
    private final List<JdbcIdempotencyStore> opened = new ArrayList<>();
    private final String table = "idem_test_" + Long.toHexString(ThreadLocalRandom.current().nextLong() & Long.MAX_VALUE);

    /** URL, user and password of the database under test. */
    protected abstract String url();

    protected String user() { return null; }

    protected String password() { return null; }

    /**
     * A connect timeout long against a loaded machine (a new database connection can take seconds when the host's CPU
     * is contended): these tests are about what the store does, not about how fast this machine is. Tests of timeouts
     * set their own.
     */
    @Override
    protected StoreSettings.Builder settings() {
        return StoreSettings.builder().url(url()).user(user()).password(password()).table(table).connectTimeout(Duration.ofSeconds(15));
    }

    @Override
    protected JdbcIdempotencyStore open(StoreSettings.Builder builder) {
        JdbcIdempotencyStore store = JdbcIdempotencyStore.open(builder.build());
        opened.add(store);
        return store;
    }

    @Override
    protected void setTime(String scope, String key, KeyTime time, long seconds) {
        setTimestamp(scope, key, time.name().toLowerCase(java.util.Locale.ROOT) + "_at", seconds);
    }

    @AfterEach
    void dropTable() throws SQLException {
        opened.forEach(JdbcIdempotencyStore::close);
        try (Connection c = connect(); Statement s = c.createStatement()) {
            s.execute("DROP TABLE IF EXISTS " + table);
            s.execute("DROP TABLE IF EXISTS " + table + "_schema");
            s.execute("DROP TABLE IF EXISTS " + table + "_secret");
            s.execute("DROP TABLE IF EXISTS " + table + "_effects");
        }
    }

    protected Connection connect() throws SQLException {
        return user() == null ? DriverManager.getConnection(url()) : DriverManager.getConnection(url(), user(), password());
    }

    protected String table() { return table; }

    @Test
    void theOwnerOfTheTableHasEveryPrivilegeTheStoreNeeds() {
        JdbcIdempotencyStore store = store();
        assertEquals(Collections.emptyList(), store.privilegeProblems(true));
        assertEquals(0, store.list(KeyQuery.all(10)).size(), "the probe leaves nothing behind");
    }

    @Test
    void underGroupCommitAWriteWhileTheStoreIsIdleRunsOnItsOwnWithoutABatch() {
        JdbcIdempotencyStore store = store(); // a pool of 10: six writes at once run on their own
        for (int i = 0; i < 5; i++) {
            Reservation r = store.reserve("t", "alone-" + i, "fp");
            assertEquals(Outcome.ACQUIRED, r.outcome());
            assertTrue(store.complete(r.token(), response(201, "alone-" + i)));
            assertEquals(Outcome.REPLAY, store.reserve("t", "alone-" + i, "fp").outcome());
        }
        assertEquals(0, store.reservationFigures().batches(), store.reservationFigures().toString());
        assertEquals(0, store.completionFigures().batches(), store.completionFigures().toString());
    }

    @Test
    void underGroupCommitConcurrentCallersShareBatchesAndEachGetsItsOwnOutcome() throws Exception {
        // A pool of two gives each kind of write one lane: a batch forms whenever two callers overlap at all, even on an
        // embedded H2 whose commits take microseconds (with two lanes on an idle machine they sometimes never did).
        JdbcIdempotencyStore store = open(settings().poolSize(2));
        int rounds = mixedRounds(store, 60, () -> store.reservationFigures().largestBatch() > 1 && store.completionFigures().largestBatch() > 1);
        assertTrue(store.reservationFigures().largestBatch() > 1, "no reservations were batched in " + rounds + " rounds: "
                + store.reservationFigures());
        assertTrue(store.completionFigures().largestBatch() > 1, "no completions were batched in " + rounds + " rounds: "
                + store.completionFigures());
    }

    @Test
    void aRowThisVersionCannotReadFailsOnlyItsOwnCallerEvenInABatch() throws Exception {
        JdbcIdempotencyStore store = open(settings().poolSize(2));
        store.checkSchema();
        OwnershipToken future = store.reserve("t", "from-a-newer-release", "fp").token();
        assertEquals(1, execute("UPDATE " + table + " SET status = 'FUTURE' WHERE idem_key = ?", future.key()));
        int threads = 16;
        ExecutorService pool = Executors.newFixedThreadPool(threads);
        try {
            for (int round = 0; round < 20; round++) {
                CyclicBarrier start = new CyclicBarrier(threads);
                List<Future<?>> done = new ArrayList<>();
                for (int t = 0; t < threads; t++) {
                    String key = t % 4 == 0 ? future.key() : "fresh-" + round + "-" + t;
                    done.add(pool.submit(() -> {
                        start.await(10, TimeUnit.SECONDS);
                        if (key.equals(future.key())) {
                            StoreDataException e = assertThrows(StoreDataException.class, () -> store.reserve("t", key, "fp"));
                            assertTrue(e.getMessage().contains(key), e.getMessage());
                        } else {
                            assertEquals(Outcome.ACQUIRED, store.reserve("t", key, "fp").outcome(), key);
                        }
                        return null;
                    }));
                }
                for (Future<?> f : done) f.get(30, TimeUnit.SECONDS);
            }
        } finally {
            pool.shutdownNow();
        }
    }

    @Test
    void withoutGroupCommitEveryCallerGetsTheSameOutcomes() throws Exception {
        JdbcIdempotencyStore store = open(settings().poolSize(4).groupCommit(false));
        mixedRounds(store, 3, () -> false);
        assertEquals(0, store.reservationFigures().batches());
        assertEquals(0, store.completionFigures().batches());
    }

    /**
     * Rounds of 32 callers released at once: new keys reserved and completed, replays, mismatches, and racers on one
     * key per round. Each caller's own outcome is checked, then every new key's stored response. Stops after
     * {@code maxRounds} or once {@code enough} holds; returns the rounds run.
     */
    protected int mixedRounds(JdbcIdempotencyStore store, int maxRounds, java.util.function.BooleanSupplier enough) throws Exception {
        int threads = 32;
        for (int t = 0; t < threads; t++) {
            OwnershipToken owner = store.reserve("mix", "done-" + t, "fp").token();
            assertTrue(store.complete(owner, response(200, "done-" + t)));
        }
        ExecutorService pool = Executors.newFixedThreadPool(threads);
        int round = 0;
        try {
            while (round < maxRounds && (round == 0 || !enough.getAsBoolean())) {
                int r = round++;
                CyclicBarrier start = new CyclicBarrier(threads);
                List<Future<Outcome>> racers = new ArrayList<>();
                List<Future<?>> others = new ArrayList<>();
                for (int t = 0; t < threads; t++) {
                    int thread = t;
                    java.util.concurrent.Callable<Outcome> work = () -> {
                        start.await(10, TimeUnit.SECONDS);
                        switch (thread % 4) {
                            case 0: {
                                String key = "new-" + r + "-" + thread;
                                Reservation fresh = store.reserve("mix", key, "fp");
                                assertEquals(Outcome.ACQUIRED, fresh.outcome(), key);
                                assertTrue(store.complete(fresh.token(), response(201, key)), key);
                                return Outcome.ACQUIRED;
                            }
                            case 1: {
                                Reservation replay = store.reserve("mix", "done-" + thread, "fp");
                                assertEquals(Outcome.REPLAY, replay.outcome());
                                assertArrayEquals(("done-" + thread).getBytes(java.nio.charset.StandardCharsets.UTF_8),
                                        replay.response().body());
                                return Outcome.REPLAY;
                            }
                            case 2:
                                assertEquals(Outcome.MISMATCH, store.reserve("mix", "done-" + thread, "other").outcome());
                                return Outcome.MISMATCH;
                            default:
                                return store.reserve("mix", "shared-" + r, "fp").outcome();
                        }
                    };
                    if (t % 4 == 3) racers.add(pool.submit(work));
                    else others.add(pool.submit(work));
                }
                for (Future<?> f : others) f.get(30, TimeUnit.SECONDS);
                Map<Outcome, Integer> counts = new ConcurrentHashMap<>();
                for (Future<Outcome> f : racers) counts.merge(f.get(30, TimeUnit.SECONDS), 1, Integer::sum);
                assertEquals(1, counts.getOrDefault(Outcome.ACQUIRED, 0), "shared-" + r + ": " + counts);
                assertEquals(racers.size() - 1, counts.getOrDefault(Outcome.IN_FLIGHT, 0), "shared-" + r + ": " + counts);
                for (int t = 0; t < threads; t += 4) {
                    String key = "new-" + r + "-" + t;
                    KeyRecord record = store.find("mix", key).orElseThrow(() -> new AssertionError(key + " missing"));
                    assertEquals(KeyStatus.COMPLETED, record.status(), key);
                    assertArrayEquals(key.getBytes(java.nio.charset.StandardCharsets.UTF_8), record.response().get().body(), key);
                }
            }
        } finally {
            pool.shutdownNow();
        }
        return round;
    }

    @Override
    protected boolean leaseRanOut(String scope, String key) {
        try (Connection c = connect(); java.sql.PreparedStatement ps = c.prepareStatement("SELECT COUNT(*) FROM " + table
                + " WHERE scope = ? AND idem_key = ? AND lease_expires_at < " + databaseNow())) {
            ps.setString(1, scope);
            ps.setString(2, key);
            try (java.sql.ResultSet rs = ps.executeQuery()) {
                rs.next();
                return rs.getInt(1) == 1;
            }
        } catch (SQLException e) {
            throw new AssertionError(e);
        }
    }

    /** How many sessions wait for a lock another session holds, now. */
    protected String lockWaitsQuery() { return "SELECT COUNT(*) FROM INFORMATION_SCHEMA.SESSIONS WHERE BLOCKER_ID IS NOT NULL"; }

    /** The database's current time as SQL, matching how the store writes timestamps. */
    protected String databaseNow() { return "CURRENT_TIMESTAMP"; }

    /** The database's current time plus (or minus) whole seconds, as SQL. */
    protected String databaseNowPlusSeconds(long seconds) { return "DATEADD(SECOND, " + seconds + ", CURRENT_TIMESTAMP)"; }

    /** Runs one statement on the test's own connection; string parameters bind as the store binds them. */
    protected int execute(String statement, Object... params) {
        try (Connection c = connect(); java.sql.PreparedStatement ps = c.prepareStatement(statement)) {
            for (int i = 0; i < params.length; i++) {
                if (params[i] instanceof byte[]) ps.setBytes(i + 1, (byte[]) params[i]);
                else ps.setObject(i + 1, params[i]);
            }
            return ps.executeUpdate();
        } catch (SQLException e) {
            throw new AssertionError(e);
        }
    }

    /** Moves a key's timestamp column to now plus {@code seconds} on the database clock: time passing, honestly. */
    void setTimestamp(String scope, String key, String column, long seconds) {
        assertEquals(1, execute("UPDATE " + table + " SET " + column + " = " + databaseNowPlusSeconds(seconds)
                + " WHERE scope = ? AND idem_key = ?", scope, key));
    }

    // ---- schema

    @Test
    void validateModeOnAMissingTableNamesTheTableAndTheShippedDdl() {
        JdbcIdempotencyStore store = open(settings().schemaMode(SchemaMode.VALIDATE));
        StoreConfigurationException e = assertThrows(StoreConfigurationException.class, () -> store.reserve("t", "k", "fp"));
        assertTrue(e.getMessage().contains(table()), e.getMessage());
        assertTrue(e.getMessage().contains(".sql"), e.getMessage());
    }

    @Test
    void validateModeNamesTheMissingColumns() throws SQLException {
        try (Connection c = connect(); Statement s = c.createStatement()) {
            s.execute("CREATE TABLE " + table() + " (scope VARCHAR(255), idem_key VARCHAR(255), status VARCHAR(16))");
        }
        JdbcIdempotencyStore store = open(settings().schemaMode(SchemaMode.VALIDATE));
        StoreConfigurationException e = assertThrows(StoreConfigurationException.class, store::checkSchema);
        assertTrue(e.getMessage().contains("fingerprint") && e.getMessage().contains("response_body"), e.getMessage());
        assertFalse(e.getMessage().contains("idem_key,"), e.getMessage());
    }

    @Test
    void validateModeAcceptsATableCreatedFromTheShippedDdl() throws SQLException {
        JdbcIdempotencyStore creator = store();
        creator.checkSchema();
        JdbcIdempotencyStore validating = open(settings().schemaMode(SchemaMode.VALIDATE));
        assertEquals(Outcome.ACQUIRED, validating.reserve("t", "k", "fp").outcome());
    }

    @Test
    void noneModeCreatesNothing() throws SQLException {
        JdbcIdempotencyStore store = open(settings().schemaMode(SchemaMode.NONE));
        assertThrows(StoreException.class, () -> store.reserve("t", "k", "fp"));
        try (Connection c = connect(); Statement s = c.createStatement()) {
            assertThrows(SQLException.class, () -> s.executeQuery("SELECT * FROM " + table()));
        }
    }

    @Test
    void aNewerSchemaVersionIsRefused() throws SQLException {
        store().checkSchema();
        try (Connection c = connect(); Statement s = c.createStatement()) {
            s.execute("INSERT INTO " + table() + "_schema (version) VALUES (99)");
        }
        StoreConfigurationException e = assertThrows(StoreConfigurationException.class, () -> store().checkSchema());
        assertTrue(e.getMessage().contains("99"), e.getMessage());
    }

    @Test
    void severalStoresCreatingTheSameTableAtOnceAllSucceed() throws Exception {
        ExecutorService pool = Executors.newFixedThreadPool(4);
        try {
            List<Future<?>> starts = new ArrayList<>();
            CyclicBarrier barrier = new CyclicBarrier(4);
            for (int i = 0; i < 4; i++) {
                JdbcIdempotencyStore node = store();
                starts.add(pool.submit(() -> {
                    barrier.await(10, TimeUnit.SECONDS);
                    node.checkSchema();
                    return null;
                }));
            }
            for (Future<?> f : starts) f.get(30, TimeUnit.SECONDS);
        } finally {
            pool.shutdownNow();
        }
    }

    // ---- the heartbeat has connections of its own

    @Test
    void renewalsAndHousekeepingAreNotStarvedWhenRequestsHoldEveryConnection() throws Exception {
        JdbcIdempotencyStore store = open(settings().poolSize(1).connectTimeout(Duration.ofMillis(250)));
        Reservation live = store.reserve("t", "live", "fp");
        store.sweepExpiredLeases(); // the background pool's connection is made now: only its independence is timed below
        byte[] lockersSecret = new byte[32];
        Arrays.fill(lockersSecret, (byte) 7);
        ExecutorService worker = Executors.newSingleThreadExecutor();
        try (Connection locker = connect()) {
            // Another node's uncommitted first write of the secret: the store's insert-if-absent waits on it, holding
            // the main pool's only connection. (The key table stays free of locks, so only the pools are tested.)
            locker.setAutoCommit(false);
            try (java.sql.PreparedStatement ps = locker.prepareStatement("INSERT INTO " + table + "_secret (id, secret) VALUES (1, ?)")) {
                ps.setBytes(1, lockersSecret);
                ps.executeUpdate();
            }
            Future<byte[]> stuck = worker.submit(store::installationSecret);
            java.util.concurrent.atomic.AtomicInteger probe = new java.util.concurrent.atomic.AtomicInteger();
            Await.until("the main pool to be exhausted", AWAIT, () -> {
                try {
                    store.reserve("t", "probe-" + probe.incrementAndGet(), "fp");
                    return false;
                } catch (StoreUnavailableException e) {
                    return true;
                }
            }, exhausted -> exhausted);

            long start = System.nanoTime();
            assertEquals(1, store.renew(Collections.singletonList(live.token())));
            long tookMillis = (System.nanoTime() - start) / 1_000_000;
            assertEquals(0, store.sweepExpiredLeases());
            assertEquals(0, store.purgeExpired());
            assertTrue(tookMillis < 200, "the renewal took " + tookMillis + " ms; the main pool gives up after 250");
            assertFalse(stuck.isDone(), "the blocked call must still hold the main pool's connection");
            locker.commit();
            assertArrayEquals(lockersSecret, stuck.get(AWAIT.toMillis(), TimeUnit.MILLISECONDS), "the first secret in wins");
        } finally {
            worker.shutdownNow();
        }
    }

    // ---- rows this version cannot read

    private void insertRaw(String key, String status, Integer responseStatus, String headers) {
        execute("INSERT INTO " + table + " (scope, idem_key, fingerprint, status, owner_token, lease_expires_at, response_status, "
                + "response_headers, response_body, attempts, created_at, updated_at, expires_at) VALUES (?, ?, 'fp', ?, NULL, NULL, ?, ?, ?, 1, "
                + databaseNow() + ", " + databaseNow() + ", " + databaseNowPlusSeconds(3600) + ")",
                "t", key, status, responseStatus, headers, "body".getBytes(java.nio.charset.StandardCharsets.UTF_8));
    }

    @Test
    void aStatusFromANewerVersionIsAStoreDataExceptionNamingTheKey() {
        JdbcIdempotencyStore store = store();
        store.checkSchema();
        insertRaw("from-the-future", "ARCHIVED", 200, "[]");
        for (org.junit.jupiter.api.function.Executable call : Arrays.<org.junit.jupiter.api.function.Executable>asList(
                () -> store.reserve("t", "from-the-future", "fp"), () -> store.find("t", "from-the-future"))) {
            StoreDataException e = assertThrows(StoreDataException.class, call);
            assertTrue(e.getMessage().contains("from-the-future") && e.getMessage().contains("'t'") && e.getMessage().contains("ARCHIVED"),
                    e.getMessage());
        }
        assertEquals(Outcome.ACQUIRED, store.reserve("t", "another", "fp").outcome(), "other keys are unaffected");
    }

    @Test
    void corruptStoredResponsesAreAStoreDataExceptionNamingTheKey() {
        JdbcIdempotencyStore store = store();
        store.checkSchema();
        insertRaw("bad-headers", "COMPLETED", 200, "not json");
        insertRaw("bad-pairs", "COMPLETED", 200, "[[\"a\"]]");
        insertRaw("bad-status", "COMPLETED", 42, "[]");
        for (String key : new String[] {"bad-headers", "bad-pairs", "bad-status"}) {
            StoreDataException reserve = assertThrows(StoreDataException.class, () -> store.reserve("t", key, "fp"));
            assertTrue(reserve.getMessage().contains(key), reserve.getMessage());
            StoreDataException find = assertThrows(StoreDataException.class, () -> store.find("t", key));
            assertTrue(find.getMessage().contains(key), find.getMessage());
        }
        assertTrue(store.delete("t", "bad-headers"), "an operator can still delete such a key");
    }

    @Test
    void storesRacingOnFirstUseAllGetTheSameSecret() throws Exception {
        for (int round = 0; round < 5; round++) {
            if (round > 0) execute("DELETE FROM " + table + "_secret");
            int nodes = 4;
            List<JdbcIdempotencyStore> stores = new ArrayList<>();
            for (int i = 0; i < nodes; i++) {
                JdbcIdempotencyStore node = store();
                node.checkSchema();
                stores.add(node);
            }
            ExecutorService pool = Executors.newFixedThreadPool(nodes);
            try {
                CyclicBarrier start = new CyclicBarrier(nodes);
                List<Future<byte[]>> secrets = new ArrayList<>();
                for (JdbcIdempotencyStore node : stores) {
                    secrets.add(pool.submit(() -> {
                        start.await(10, TimeUnit.SECONDS);
                        return node.installationSecret();
                    }));
                }
                byte[] agreed = secrets.get(0).get(30, TimeUnit.SECONDS);
                for (Future<byte[]> f : secrets) assertArrayEquals(agreed, f.get(30, TimeUnit.SECONDS), "round " + round);
            } finally {
                pool.shutdownNow();
            }
        }
    }

    // ---- schema version 2

    /** The shipped DDL of schema version 1, as the previous release created it. */
    private void createVersionOneTable() throws SQLException {
        try (Connection c = connect(); Statement s = c.createStatement()) {
            for (String statement : VersionOneSchema.statements(store().dialectName(), table, table)) s.execute(statement);
        }
    }

    @Test
    void aVersionOneTableIsRefusedByValidateWithWhatToRun() throws SQLException {
        createVersionOneTable();
        StoreConfigurationException e = assertThrows(StoreConfigurationException.class,
                () -> open(settings().schemaMode(SchemaMode.VALIDATE)).checkSchema());
        assertTrue(e.getMessage().contains("schema version 1") && e.getMessage().contains("needs version 2"), e.getMessage());
        assertTrue(e.getMessage().contains(table + "_secret"), e.getMessage());
        assertTrue(e.getMessage().contains("dev/idempotency/store/schema/" + store().dialectName() + ".sql"), e.getMessage());
        assertTrue(e.getMessage().contains("schema mode create"), e.getMessage());
    }

    @Test
    void aVersionOneTableIsUpgradedInPlaceByCreateAndKeepsItsKeys() throws SQLException {
        createVersionOneTable();
        insertRaw("abc", "COMPLETED", 201, "[[\"Content-Type\",\"text/plain\"]]");

        JdbcIdempotencyStore store = store();
        store.checkSchema();
        Reservation replay = store.reserve("t", "abc", "fp");
        assertEquals(Outcome.REPLAY, replay.outcome(), "the key written under version 1 is still found");
        assertEquals("body", new String(replay.response().body()));
        assertEquals(Outcome.ACQUIRED, store.reserve("t", "abc ", "fp").outcome(), "after the upgrade, 'abc ' is not 'abc'");
        assertEquals(32, store.installationSecret().length);
        try (Connection c = connect(); Statement s = c.createStatement();
             java.sql.ResultSet rs = s.executeQuery("SELECT MAX(version) FROM " + table + "_schema")) {
            rs.next();
            assertEquals(2, rs.getInt(1));
        }
        open(settings().schemaMode(SchemaMode.VALIDATE)).checkSchema();
    }

    @Test
    void validateModeRefusesAVersionTwoTableWithoutItsSecretTable() throws SQLException {
        store().checkSchema();
        execute("DROP TABLE " + table + "_secret");
        StoreConfigurationException e = assertThrows(StoreConfigurationException.class,
                () -> open(settings().schemaMode(SchemaMode.VALIDATE)).checkSchema());
        assertTrue(e.getMessage().contains(table + "_secret") && e.getMessage().contains(".sql"), e.getMessage());
    }

    @Test
    void theInstallationSecretIsReadUnderValidateToo() {
        byte[] secret = store().installationSecret();
        assertArrayEquals(secret, open(settings().schemaMode(SchemaMode.VALIDATE)).installationSecret());
    }

}
