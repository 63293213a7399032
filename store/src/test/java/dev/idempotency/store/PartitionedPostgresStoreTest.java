package dev.idempotency.store;

import dev.idempotency.store.Reservation.Outcome;
import dev.idempotency.store.jdbc.JdbcIdempotencyStore;
import dev.idempotency.store.testing.Await;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The whole store contract on a PostgreSQL key table in daily partitions, and what partitions add: one owner per key
 * whichever partitions its requests fall in, the purge dropping whole partitions, partitions made ahead and on demand.
 * Tests of the boundaries use partitions one or two seconds wide, so that real boundaries pass while they run.
 */
class PartitionedPostgresStoreTest extends PostgresStoreTest {
    private static final Duration AWAIT = Duration.ofSeconds(20);

    @Override
    protected StoreSettings.Builder settings() {
        return super.settings().partitioning(Duration.ofDays(1));
    }

    /** Partitions {@code seconds} wide, keys living 50 of them (unless a test says otherwise). */
    private StoreSettings.Builder narrow(int seconds) {
        return super.settings().partitioning(Duration.ofSeconds(seconds)).ttl(Duration.ofSeconds(50L * seconds));
    }

    @AfterEach
    void dropFunctions() throws SQLException {
        try (Connection c = connect(); Statement s = c.createStatement()) {
            s.execute("DROP TABLE IF EXISTS " + table() + " CASCADE");
            s.execute("DROP FUNCTION IF EXISTS " + table() + "_vacant(VARCHAR, VARCHAR)");
            s.execute("DROP FUNCTION IF EXISTS " + table() + "_partition_seconds()");
            s.execute("DROP FUNCTION IF EXISTS " + table() + "_partition_start(TIMESTAMPTZ)");
        }
    }

    // ---- the contract's purge, version-1 and plain-table cases do not apply to a partitioned table: its own follow

    @Override void thePurgeDeletesExpiredTerminalKeysOnlyInBatches() { }
    @Override void purgeReportsEachBatch() { }
    @Override void aVersionOneTableIsRefusedByValidateWithWhatToRun() { }
    @Override void aVersionOneTableIsUpgradedInPlaceByCreateAndKeepsItsKeys() { }

    /** A year's ttl would span 365 daily partitions: refused; the longest daily partitions allow still works. */
    @Test
    @Override
    void theLongestTtlAndLeaseStayInRangeOfTheDatabasesTimestamps() {
        StoreConfigurationException tooMany = assertThrows(StoreConfigurationException.class,
                () -> open(settings().ttl(StoreSettings.MAX_TTL)));
        assertTrue(tooMany.getMessage().contains("more than 100 partitions") && tooMany.getMessage().contains("at most 100d"),
                tooMany.getMessage());
        JdbcIdempotencyStore store = open(settings().ttl(Duration.ofDays(100)).lease(StoreSettings.MAX_LEASE));
        Reservation r = store.reserve("t", "k", "fp");
        assertTrue(store.complete(r.token(), response(200, "kept for 100 days")));
        assertEquals(Outcome.REPLAY, store.reserve("t", "k", "fp").outcome());
        assertEquals(0, store.purgeExpired());
        assertTrue(store.find("t", "k").isPresent());
    }

    // ---- one owner per key across partitions

    /**
     * A first request holds the lock on its key with its row written (uncommitted) in one partition; the clock passes
     * the boundary; a second request for the key, which writes to the next partition, where no unique index can see
     * the first row, waits for the first to commit and then finds the key taken.
     */
    @Test
    void aFirstRequestStillCommittingInThePreviousPartitionKeepsTheKeyFromTheNextOne() throws Exception {
        assertEquals(Outcome.IN_FLIGHT, secondRequestAcrossABoundary(open(narrow(2))));
    }

    /**
     * The same with sessions that default to repeatable read, whose snapshot, taken before the wait for the key's lock,
     * would not show the first request's row: the store's connections run read committed all the same.
     */
    @Test
    void underARepeatableReadDefaultTheSecondRequestStillFindsTheKeyTaken() throws Exception {
        String repeatableRead = url() + (url().contains("?") ? "&" : "?") + "options=-c%20default_transaction_isolation%3Drepeatable%5C%20read";
        try (Connection c = user() == null ? java.sql.DriverManager.getConnection(repeatableRead)
                : java.sql.DriverManager.getConnection(repeatableRead, user(), password());
             Statement s = c.createStatement(); ResultSet rs = s.executeQuery("SHOW default_transaction_isolation")) {
            rs.next();
            assertEquals("repeatable read", rs.getString(1), "the store's sessions default to repeatable read");
        }
        assertEquals(Outcome.IN_FLIGHT, secondRequestAcrossABoundary(open(narrow(2).url(repeatableRead))));
    }

    /** A first insert made under repeatable read (by anything but the store) is refused, never let in blind. */
    @Test
    void theVacancyCheckRefusesRepeatableRead() throws SQLException {
        open(narrow(60)).checkSchema();
        try (Connection c = connect()) {
            c.setTransactionIsolation(Connection.TRANSACTION_REPEATABLE_READ);
            c.setAutoCommit(false);
            SQLException refused = assertThrows(SQLException.class, () -> {
                try (Statement s = c.createStatement()) {
                    s.executeQuery("SELECT " + table() + "_vacant('t', 'k')").close();
                }
            });
            assertEquals("0A000", refused.getSQLState(), refused.getMessage());
            c.rollback();
        }
    }

    /**
     * A first request holds the lock on its key with its row written (uncommitted) in one partition; the clock passes
     * the boundary; a second request for the key through {@code store}, which writes to the next partition, where no
     * unique index can see the first row, must wait for the first to commit. Returns what the second request got.
     */
    private Outcome secondRequestAcrossABoundary(JdbcIdempotencyStore store) throws Exception {
        store.checkSchema();
        ExecutorService second = Executors.newSingleThreadExecutor();
        try (Connection first = connect(); Connection observer = connect()) {
            first.setAutoCommit(false);
            try (Statement s = first.createStatement()) {
                try (ResultSet rs = s.executeQuery("SELECT " + table() + "_vacant('t', 'k')")) {
                    rs.next();
                    assertTrue(rs.getBoolean(1));
                }
                s.executeUpdate("INSERT INTO " + table() + " (scope, idem_key, fingerprint, status, owner_token, lease_expires_at, attempts,"
                        + " created_at, updated_at, expires_at) VALUES ('t', 'k', 'fp', 'IN_FLIGHT', 'first-owner',"
                        + " CURRENT_TIMESTAMP + INTERVAL '1 minute', 1, CURRENT_TIMESTAMP, CURRENT_TIMESTAMP, CURRENT_TIMESTAMP + INTERVAL '1 hour')");
            }
            Await.until("the clock to pass into the next partition", AWAIT, () -> passedBoundary(first), passed -> passed);
            Future<Reservation> later = second.submit(() -> store.reserve("t", "k", "fp"));
            Await.until("the second request to wait for the key's lock", AWAIT,
                    () -> scalar(observer, "SELECT COUNT(*) FROM pg_locks WHERE locktype = 'advisory' AND NOT granted"), n -> n >= 1);
            assertFalse(later.isDone(), "the second request must wait for the first to commit");
            first.commit();
            Reservation outcome = later.get(20, TimeUnit.SECONDS);
            assertEquals(1, scalar(observer, "SELECT COUNT(*) FROM " + table() + " WHERE scope = 't' AND idem_key = 'k'"));
            return outcome.outcome();
        } finally {
            second.shutdownNow();
        }
    }

    /** Whether the clock, read outside the first request's transaction, is past the partition that transaction wrote to. */
    private boolean passedBoundary(Connection first) {
        try (Connection observer = connect()) {
            long written;
            try (Statement s = first.createStatement();
                 ResultSet rs = s.executeQuery("SELECT CAST(extract(epoch FROM part_at) AS BIGINT) FROM " + table() + " WHERE idem_key = 'k'")) {
                rs.next();
                written = rs.getLong(1);
            }
            return scalar(observer, "SELECT CAST(floor(extract(epoch FROM CURRENT_TIMESTAMP) / 2) * 2 AS BIGINT)") > written;
        } catch (SQLException e) {
            throw new AssertionError(e);
        }
    }

    /**
     * Callers racing on a key, released together 3 ms before a one-second boundary, so that some write into the
     * partition before it and some into the one after; round after round, with and without group commit.
     */
    @Test
    void callersRacingOnKeysAcrossBoundariesAcquireEachExactlyOnce() throws Exception {
        for (boolean groupCommit : new boolean[] {true, false}) {
            JdbcIdempotencyStore store = open(narrow(1).poolSize(8).groupCommit(groupCommit));
            store.checkSchema();
            int callers = 8;
            ExecutorService pool = Executors.newFixedThreadPool(callers);
            try {
                for (int round = 0; round < 8; round++) {
                    String key = "race-" + groupCommit + "-" + round;
                    java.util.concurrent.CountDownLatch ready = new java.util.concurrent.CountDownLatch(callers);
                    java.util.concurrent.CountDownLatch go = new java.util.concurrent.CountDownLatch(1);
                    List<Future<Outcome>> outcomes = new ArrayList<>();
                    for (int i = 0; i < callers; i++) {
                        outcomes.add(pool.submit(() -> {
                            ready.countDown();
                            go.await();
                            return store.reserve("t", key, "fp").outcome();
                        }));
                    }
                    assertTrue(ready.await(10, TimeUnit.SECONDS));
                    // This machine's clock is the database's: the release is timed against it (timing the race, not
                    // standing in for a condition).
                    long release = (System.currentTimeMillis() / 1000 + 1) * 1000 - 3;
                    Thread.sleep(Math.max(0, release - System.currentTimeMillis()));
                    go.countDown();
                    int acquired = 0;
                    for (Future<Outcome> f : outcomes) if (f.get(30, TimeUnit.SECONDS) == Outcome.ACQUIRED) acquired++;
                    assertEquals(1, acquired, key + " acquired once");
                }
            } finally {
                pool.shutdownNow();
            }
            try (Connection c = connect()) {
                assertTrue(scalar(c, "SELECT COUNT(DISTINCT part_at) FROM " + table() + " WHERE idem_key LIKE 'race-" + groupCommit + "-%'") >= 2,
                        "the keys went to several partitions");
            }
        }
    }

    // ---- purge by partition

    @Test
    void thePurgeDropsAPartitionOnceEveryKeyInItExpiredAndKeepsWhatIsStillRemembered() throws Exception {
        JdbcIdempotencyStore store = open(narrow(1).ttl(Duration.ofSeconds(1)).lease(Duration.ofSeconds(30)));
        JdbcIdempotencyStore shortLease = open(narrow(1).ttl(Duration.ofSeconds(1)).lease(Duration.ofMillis(300)));
        store.checkSchema();
        awaitNextPartition(1);
        for (int i = 0; i < 3; i++) store.complete(store.reserve("t", "done" + i, "fp").token(), response(200, "x"));
        store.release(store.reserve("t", "released", "fp").token());
        Reservation unknown = shortLease.reserve("t", "unknown", "fp");
        String expiredPartition = partitionOf("done0");
        Await.until("the expired lease to be swept", AWAIT, shortLease::sweepExpiredLeases, n -> n >= 1);
        assertEquals(KeyStatus.UNKNOWN, store.find("t", "unknown").get().status());
        awaitNextPartition(1);
        Reservation running = store.reserve("t", "running", "fp");
        String runningPartition = partitionOf("running");
        assertNotEquals(expiredPartition, runningPartition);

        List<Integer> reported = new ArrayList<>();
        AtomicInteger purged = new AtomicInteger();
        Await.until("the expired partition to be dropped", AWAIT, () -> purged.addAndGet(store.purgeExpired(reported::add)), n -> n > 0);
        assertEquals(4, purged.get(), "three completed keys and a released one went with their partition");
        assertEquals(4, reported.stream().mapToInt(Integer::intValue).sum());
        assertFalse(tableExists(expiredPartition), expiredPartition + " dropped");
        assertFalse(store.find("t", "done0").isPresent());
        assertFalse(store.find("t", "released").isPresent());
        KeyRecord kept = store.find("t", "unknown").get();
        assertEquals(KeyStatus.UNKNOWN, kept.status(), "a key of unknown outcome waits for an operator");
        assertNotEquals(expiredPartition, partitionOf("unknown"), "moved out of the dropped partition");
        assertTrue(store.complete(unknown.token(), response(201, "late")), "its slow owner still records the truth");

        try (Connection c = connect()) {
            Await.until("the running key's partition to end a ttl ago", AWAIT,
                    () -> scalar(c, "SELECT CAST(floor(extract(epoch FROM CURRENT_TIMESTAMP)) AS BIGINT)"), now -> now >= endOf(runningPartition) + 1);
        }
        store.purgeExpired();
        assertTrue(tableExists(runningPartition), "a partition holding a key in flight is kept");
        assertTrue(store.complete(running.token(), response(200, "ok")));
        Await.until("the running key's partition to go once its key expired", AWAIT, () -> store.purgeExpired(),
                n -> !tableExists(runningPartition));
        assertFalse(store.find("t", "running").isPresent());
    }

    /**
     * Batched sweeps and purges name rows by table and row address: rows at the same address in three partitions (the
     * first row of each) are three rows, taken one batch at a time.
     */
    @Test
    void batchesCountRowsAcrossPartitionsOneByOne() throws Exception {
        JdbcIdempotencyStore store = open(narrow(1).lease(Duration.ofMillis(200)).batchSize(1));
        store.checkSchema();
        for (int i = 0; i < 3; i++) {
            awaitNextPartition(1);
            store.reserve("t", "unknown-" + i, "fp");
        }
        try (Connection c = connect()) {
            assertEquals(3, scalar(c, "SELECT COUNT(DISTINCT tableoid) FROM " + table()));
            assertEquals(1, scalar(c, "SELECT COUNT(DISTINCT ctid) FROM " + table()), "the same row address in each partition");
        }
        Await.until("every lease to expire and be swept", AWAIT, () -> {
            store.sweepExpiredLeases();
            return store.countByStatus().getOrDefault(KeyStatus.UNKNOWN, 0L);
        }, n -> n == 3);
        execute("UPDATE " + table() + " SET updated_at = CURRENT_TIMESTAMP - INTERVAL '40 days', expires_at = CURRENT_TIMESTAMP - INTERVAL '1 second'");
        List<Integer> batches = new ArrayList<>();
        assertEquals(3, store.purgeExpired(batches::add));
        assertEquals(java.util.Arrays.asList(1, 1, 1), batches);
    }

    /** Every write that gives a key a new ttl moves it to the partition of that moment; the key stays one row. */
    @Test
    void everyWriteGivingAKeyANewTtlMovesItToTheCurrentPartition() throws Exception {
        JdbcIdempotencyStore store = open(narrow(1).ttl(Duration.ofMillis(500)));
        store.complete(store.reserve("t", "expired", "fp-1").token(), response(200, "old"));
        String before = partitionOf("expired");
        awaitNextPartition(1);
        Reservation again = Await.until("the key to expire", AWAIT, () -> store.reserve("t", "expired", "fp-2"), r -> r.outcome() != Outcome.MISMATCH);
        assertEquals(Outcome.ACQUIRED, again.outcome());
        assertNotEquals(before, partitionOf("expired"), "an expired key taken again");

        JdbcIdempotencyStore longer = open(narrow(1).lease(Duration.ofMillis(300)).expiredLeasePolicy(ExpiredLeasePolicy.RETRY));
        longer.release(longer.reserve("t", "released", "fp").token());
        longer.reserve("t", "abandoned", "fp");
        JdbcIdempotencyStore reconciling = open(narrow(1).lease(Duration.ofMillis(300)));
        reconciling.reserve("t", "unknown", "fp");
        String[] keys = {"released", "abandoned", "unknown"};
        String[] partitions = new String[keys.length];
        for (int i = 0; i < keys.length; i++) partitions[i] = partitionOf(keys[i]);
        awaitNextPartition(1);
        assertEquals(Outcome.REACQUIRED, longer.reserve("t", "released", "fp").outcome());
        Await.until("the abandoned lease to expire", AWAIT, () -> longer.reserve("t", "abandoned", "fp").outcome(), o -> o == Outcome.REACQUIRED);
        Await.until("the unknown key's lease to expire", AWAIT, () -> reconciling.reserve("t", "unknown", "fp").outcome(),
                o -> o == Outcome.OUTCOME_UNKNOWN);
        assertTrue(reconciling.resolveAsCompleted("t", "unknown", response(200, "decided")));
        for (int i = 0; i < keys.length; i++) {
            assertNotEquals(partitions[i], partitionOf(keys[i]), keys[i] + " moved");
        }
        try (Connection c = connect()) {
            assertEquals(4, scalar(c, "SELECT COUNT(*) FROM " + table()));
        }
    }

    /**
     * Once the clock passed every partition made ahead, concurrent reservations (group commit on) make the missing one
     * themselves, one of them at a time, while a long read holds the table: all get in.
     */
    @Test
    void partitionsTheClockOutranAreMadeOnDemand() throws Exception {
        JdbcIdempotencyStore store = open(narrow(1).poolSize(8));
        store.checkSchema();
        String last = Await.until("partitions made ahead", AWAIT, this::newestPartition, p -> p != null);
        ExecutorService callers = Executors.newFixedThreadPool(17);
        try (Connection c = connect(); Connection reader = connect()) {
            Await.until("the clock to pass the newest partition", AWAIT,
                    () -> scalar(c, "SELECT CAST(floor(extract(epoch FROM CURRENT_TIMESTAMP)) AS BIGINT)"), now -> now > endOf(last));
            Future<?> longRead = callers.submit(() -> scalar(reader, "SELECT COUNT(*) FROM " + table() + ", pg_sleep(1.5)"));
            Await.until("the long read to hold the table", AWAIT, () -> scalar(c, "SELECT COUNT(*) FROM pg_stat_activity"
                    + " WHERE query LIKE '%pg_sleep(1.5)' AND state = 'active' AND pid <> pg_backend_pid()"), n -> n == 1);
            List<Future<Object>> outcomes = new ArrayList<>();
            for (int i = 0; i < 16; i++) {
                String key = "late-" + i;
                outcomes.add(callers.submit(() -> {
                    try {
                        return store.reserve("t", key, "fp").outcome();
                    } catch (StoreException e) {
                        return e + (e.getCause() == null ? "" : " " + java.util.Arrays.toString(e.getCause().getSuppressed()));
                    }
                }));
            }
            List<Object> got = new ArrayList<>();
            for (Future<Object> f : outcomes) got.add(f.get(30, TimeUnit.SECONDS));
            assertTrue(got.stream().allMatch(o -> o == Outcome.ACQUIRED), got + " with partitions " + partitionsNow());
            longRead.get(30, TimeUnit.SECONDS);
        } finally {
            callers.shutdownNow();
        }
        assertNotEquals(last, newestPartition(), "the reservations made the partitions they needed");
    }

    /**
     * A reservation whose partition DDL was refused its lock does not fail while another caller of this JVM is making
     * the partitions (and may have got the lock since): it waits for that caller and gets in.
     */
    @Test
    void aReservationRefusedThePartitionLockWaitsForAnotherCallerMakingThem() throws Exception {
        JdbcIdempotencyStore store = open(narrow(1).groupCommit(false).poolSize(4).queryTimeout(Duration.ofSeconds(2)));
        store.checkSchema();
        String last = Await.until("partitions made ahead", AWAIT, this::newestPartition, p -> p != null);
        ExecutorService callers = Executors.newFixedThreadPool(2);
        try (Connection holder = connect(); Connection c = connect()) {
            holder.setAutoCommit(false);
            try (Statement s = holder.createStatement()) {
                s.execute("SELECT pg_advisory_xact_lock(hashtext('idempotency-schema:" + table() + "'))"); // what the DDL takes first
            }
            Await.until("the clock to pass the newest partition", AWAIT,
                    () -> scalar(c, "SELECT CAST(floor(extract(epoch FROM CURRENT_TIMESTAMP)) AS BIGINT)"), now -> now > endOf(last));
            Future<Object> refused = callers.submit(() -> outcomeOf(store, "refused-first"));
            long firstWaiter = Await.until("the first reservation to wait for the partitions' lock", AWAIT,
                    () -> waiterOnTheSchemaLock(c), pid -> pid != 0);
            Future<Object> second = callers.submit(() -> outcomeOf(store, "made-by-the-second"));
            Await.until("the first to be refused the lock and the second to wait for it", AWAIT,
                    () -> waiterOnTheSchemaLock(c), pid -> pid != 0 && pid != firstWaiter);
            holder.rollback();
            assertEquals(Outcome.ACQUIRED, second.get(30, TimeUnit.SECONDS));
            assertEquals(Outcome.ACQUIRED, refused.get(30, TimeUnit.SECONDS), "with partitions " + partitionsNow());
        } finally {
            callers.shutdownNow();
        }
    }

    private static Object outcomeOf(JdbcIdempotencyStore store, String key) {
        try {
            return store.reserve("t", key, "fp").outcome();
        } catch (StoreException e) {
            return e + (e.getCause() == null ? "" : " " + java.util.Arrays.toString(e.getCause().getSuppressed()));
        }
    }

    /** The server process waiting for an advisory lock now, or 0. */
    private static long waiterOnTheSchemaLock(Connection c) {
        return scalar(c, "SELECT COALESCE(MIN(pid), 0) FROM pg_locks WHERE locktype = 'advisory' AND NOT granted");
    }

    /**
     * A partition that cannot be made (another transaction holds a lock its attach needs) fails the reservation as a
     * store error, never as a key in flight; once the lock is gone the next reservations make it and get in.
     */
    @Test
    void aPartitionThatCannotBeMadeFailsTheReservationUntilItCanBe() throws Exception {
        JdbcIdempotencyStore store = open(narrow(1).groupCommit(false).queryTimeout(Duration.ofSeconds(2)));
        store.checkSchema();
        String last = Await.until("partitions made ahead", AWAIT, this::newestPartition, p -> p != null);
        try (Connection holder = connect(); Connection c = connect()) {
            holder.setAutoCommit(false);
            try (Statement s = holder.createStatement()) {
                s.execute("LOCK TABLE " + table() + " IN SHARE UPDATE EXCLUSIVE MODE"); // what an attach takes
            }
            Await.until("the clock to pass the newest partition", AWAIT,
                    () -> scalar(c, "SELECT CAST(floor(extract(epoch FROM CURRENT_TIMESTAMP)) AS BIGINT)"), now -> now > endOf(last));
            StoreException refused = assertThrows(StoreException.class, () -> store.reserve("t", "blocked", "fp"));
            assertTrue(refused.getMessage().contains("no partition"), refused.getMessage());
            holder.rollback();
        }
        assertEquals(Outcome.ACQUIRED, Await.until("the partition to be made once the lock is gone", AWAIT, () -> {
            try {
                return store.reserve("t", "blocked", "fp").outcome();
            } catch (StoreException stillRefused) {
                return null;
            }
        }, o -> o != null));
    }

    // ---- configuration

    @Test
    void aPartitionedTableWithoutTheStoresFunctionsIsRefusedByName() throws SQLException {
        open(narrow(60)).checkSchema();
        execute("DROP FUNCTION " + table() + "_vacant(VARCHAR, VARCHAR)");
        StoreConfigurationException refused = assertThrows(StoreConfigurationException.class,
                () -> open(narrow(60).schemaMode(SchemaMode.VALIDATE)).checkSchema());
        assertTrue(refused.getMessage().contains("not made by the store") && refused.getMessage().contains("_vacant"), refused.getMessage());
    }

    @Test
    void aPlainTableIsRefusedWithPartitioningAndAPartitionedOneWithout() {
        open(super.settings()).checkSchema();
        StoreConfigurationException plain = assertThrows(StoreConfigurationException.class, () -> open(settings()).checkSchema());
        assertTrue(plain.getMessage().contains("one plain table"), plain.getMessage());
        dropTableNow();
        open(narrow(60)).checkSchema();
        StoreConfigurationException partitioned = assertThrows(StoreConfigurationException.class, () -> open(super.settings()).checkSchema());
        assertTrue(partitioned.getMessage().contains("set idempotency.store.partitioning to 60s"), partitioned.getMessage());
        StoreConfigurationException otherWidth = assertThrows(StoreConfigurationException.class, () -> open(narrow(30)).checkSchema());
        assertTrue(otherWidth.getMessage().contains("60s wide, not 30s"), otherWidth.getMessage());
        StoreConfigurationException validating = assertThrows(StoreConfigurationException.class,
                () -> open(narrow(30).schemaMode(SchemaMode.VALIDATE)).checkSchema());
        assertTrue(validating.getMessage().contains("60s wide, not 30s"), validating.getMessage());
        open(narrow(60).schemaMode(SchemaMode.VALIDATE)).checkSchema();
    }

    @Test
    void theShippedPartitionedDdlAppliedByHandPassesValidation() throws SQLException {
        try (Connection c = connect(); Statement s = c.createStatement()) {
            for (String statement : dev.idempotency.store.jdbc.SchemaManager.ddlStatements(
                    dev.idempotency.store.jdbc.dialect.Dialect.forUrl(url()), table(), Duration.ofHours(1))) {
                s.execute(statement);
            }
        }
        JdbcIdempotencyStore store = open(super.settings().partitioning(Duration.ofHours(1)).schemaMode(SchemaMode.VALIDATE));
        assertEquals(Outcome.ACQUIRED, store.reserve("t", "k", "fp").outcome());
        assertEquals(Outcome.IN_FLIGHT, store.reserve("t", "k", "fp").outcome());
    }

    // ---- helpers

    private void dropTableNow() {
        try {
            dropFunctions();
        } catch (SQLException e) {
            throw new AssertionError(e);
        }
    }

    private void awaitNextPartition(int widthSeconds) throws SQLException {
        try (Connection c = connect()) {
            long current = scalar(c, "SELECT CAST(floor(extract(epoch FROM CURRENT_TIMESTAMP) / " + widthSeconds + ") AS BIGINT)");
            Await.until("the next partition", AWAIT, () -> scalar(c, "SELECT CAST(floor(extract(epoch FROM CURRENT_TIMESTAMP) / "
                    + widthSeconds + ") AS BIGINT)"), n -> n > current);
        }
    }

    /** The partition (table name) holding a key of scope t. */
    private String partitionOf(String key) {
        try (Connection c = connect(); PreparedStatement ps = c.prepareStatement(
                "SELECT CAST(tableoid::regclass AS VARCHAR) FROM " + table() + " WHERE scope = 't' AND idem_key = ?")) {
            ps.setString(1, key);
            try (ResultSet rs = ps.executeQuery()) {
                assertTrue(rs.next(), key + " present");
                return rs.getString(1);
            }
        } catch (SQLException e) {
            throw new AssertionError(e);
        }
    }

    private List<String> partitionsNow() {
        List<String> names = new ArrayList<>();
        try (Connection c = connect(); PreparedStatement ps = c.prepareStatement("SELECT child.relname FROM pg_inherits i"
                + " JOIN pg_class child ON child.oid = i.inhrelid WHERE i.inhparent = to_regclass(?) ORDER BY 1")) {
            ps.setString(1, table());
            try (ResultSet rs = ps.executeQuery()) {
                while (rs.next()) names.add(rs.getString(1));
            }
        } catch (SQLException e) {
            throw new AssertionError(e);
        }
        return names;
    }

    private String newestPartition() {
        List<String> names = partitionsNow();
        return names.isEmpty() ? null : names.get(names.size() - 1);
    }

    /** The end, in epoch seconds, of a one-second partition named by the store. */
    private static long endOf(String partition) {
        String suffix = partition.substring(partition.lastIndexOf("_p") + 2).toUpperCase(java.util.Locale.ROOT);
        return java.time.format.DateTimeFormatter.ofPattern("yyyyMMdd'T'HHmmss").withZone(java.time.ZoneOffset.UTC)
                .parse(suffix, java.time.Instant::from).getEpochSecond() + 1;
    }

    private boolean tableExists(String name) {
        try (Connection c = connect(); PreparedStatement ps = c.prepareStatement("SELECT to_regclass(?) IS NOT NULL")) {
            ps.setString(1, name);
            try (ResultSet rs = ps.executeQuery()) {
                rs.next();
                return rs.getBoolean(1);
            }
        } catch (SQLException e) {
            throw new AssertionError(e);
        }
    }

    private static long scalar(Connection c, String query) {
        try (Statement s = c.createStatement(); ResultSet rs = s.executeQuery(query)) {
            rs.next();
            return rs.getLong(1);
        } catch (SQLException e) {
            throw new AssertionError(e);
        }
    }
}
