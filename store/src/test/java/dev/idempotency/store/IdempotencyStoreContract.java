package dev.idempotency.store;

import dev.idempotency.store.Reservation.Outcome;
import dev.idempotency.store.StoredResponse.Header;
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
import java.time.Instant;
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
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** Every behaviour of the store, run against each database by a thin subclass. */
abstract class IdempotencyStoreContract {

    private static final Duration SHORT = Duration.ofMillis(300);
    private static final Duration AWAIT = Duration.ofSeconds(10);

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
    protected StoreSettings.Builder settings() {
        return StoreSettings.builder().url(url()).user(user()).password(password()).table(table).connectTimeout(Duration.ofSeconds(15));
    }

    protected JdbcIdempotencyStore open(StoreSettings.Builder builder) {
        JdbcIdempotencyStore store = JdbcIdempotencyStore.open(builder.build());
        opened.add(store);
        return store;
    }

    protected JdbcIdempotencyStore store() {
        return open(settings());
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

    static StoredResponse response(int status, String body) {
        return new StoredResponse(status, Arrays.asList(new Header("Content-Type", "text/plain; charset=UTF-8")),
                body.getBytes(java.nio.charset.StandardCharsets.UTF_8));
    }

    // ---- reserve

    @Test
    void aNewKeyIsAcquired() {
        Reservation r = store().reserve("tenant", "k1", "fp");
        assertEquals(Outcome.ACQUIRED, r.outcome());
        assertTrue(r.owned());
        assertEquals("k1", r.token().key());
    }

    @Test
    void aCompletedKeyReplaysTheStoredResponseByteForByte() {
        JdbcIdempotencyStore store = store();
        byte[] body = new byte[70_000];
        for (int i = 0; i < body.length; i++) body[i] = (byte) (i * 31 + (i >> 8));
        List<Header> headers = Arrays.asList(new Header("Content-Type", "application/octet-stream"),
                new Header("Set-Cookie", "a=1"), new Header("Set-Cookie", "b=\"2\"; Path=/"), new Header("X-Ünïcode", "wert €"));
        StoredResponse original = new StoredResponse(201, headers, body);

        Reservation first = store.reserve("tenant", "k", "fp");
        assertTrue(store.complete(first.token(), original));

        Reservation retry = store.reserve("tenant", "k", "fp");
        assertEquals(Outcome.REPLAY, retry.outcome());
        assertEquals(201, retry.response().status());
        assertEquals(headers, retry.response().headers());
        assertArrayEquals(body, retry.response().body());
    }

    @Test
    void anEmptyBodyIsKeptAsEmpty() {
        JdbcIdempotencyStore store = store();
        Reservation first = store.reserve("t", "k", "fp");
        store.complete(first.token(), new StoredResponse(204, Collections.emptyList(), new byte[0]));
        StoredResponse replayed = store.reserve("t", "k", "fp").response();
        assertEquals(204, replayed.status());
        assertEquals(0, replayed.bodyLength());
        assertTrue(replayed.headers().isEmpty());
    }

    @Test
    void aKeyInFlightReportsTheTimeLeftOnItsLease() {
        JdbcIdempotencyStore store = open(settings().lease(Duration.ofSeconds(30)));
        store.reserve("t", "k", "fp");
        Reservation second = store.reserve("t", "k", "fp");
        assertEquals(Outcome.IN_FLIGHT, second.outcome());
        assertTrue(second.leaseRemainingMillis() > 25_000 && second.leaseRemainingMillis() <= 30_000,
                "lease left: " + second.leaseRemainingMillis());
        assertFalse(second.owned());
    }

    @Test
    void aDifferentFingerprintIsAMismatchWhileInFlightAndOnceCompleted() {
        JdbcIdempotencyStore store = store();
        Reservation first = store.reserve("t", "k", "fp-a");
        assertEquals(Outcome.MISMATCH, store.reserve("t", "k", "fp-b").outcome());
        store.complete(first.token(), response(200, "ok"));
        assertEquals(Outcome.MISMATCH, store.reserve("t", "k", "fp-b").outcome());
        assertEquals(Outcome.REPLAY, store.reserve("t", "k", "fp-a").outcome());
    }

    @Test
    void scopesAreIndependent() {
        JdbcIdempotencyStore store = store();
        Reservation alice = store.reserve("alice", "same-key", "fp-alice");
        store.complete(alice.token(), response(200, "alice's receipt"));

        Reservation bob = store.reserve("bob", "same-key", "fp-bob");
        assertEquals(Outcome.ACQUIRED, bob.outcome());
        store.complete(bob.token(), response(200, "bob's receipt"));

        assertEquals("alice's receipt", new String(store.reserve("alice", "same-key", "fp-alice").response().body()));
        assertEquals("bob's receipt", new String(store.reserve("bob", "same-key", "fp-bob").response().body()));
    }

    @Test
    void keysAndScopesAreCaseSensitive() {
        JdbcIdempotencyStore store = store();
        store.reserve("Tenant", "Key", "fp");
        assertEquals(Outcome.ACQUIRED, store.reserve("Tenant", "KEY", "fp").outcome());
        assertEquals(Outcome.ACQUIRED, store.reserve("TENANT", "Key", "fp").outcome());
    }

    @Test
    void completeOnlyOnceAndOnlyByTheOwner() {
        JdbcIdempotencyStore store = store();
        Reservation r = store.reserve("t", "k", "fp");
        assertFalse(store.complete(new OwnershipToken("t", "k", "not-the-token"), response(200, "forged")));
        assertTrue(store.complete(r.token(), response(200, "first")));
        assertFalse(store.complete(r.token(), response(200, "second")));
        assertEquals("first", new String(store.reserve("t", "k", "fp").response().body()));
    }

    @Test
    void aRecordedResponseIsReplacedOnlyByItsOwnerAndOnlyOnceCompleted() {
        JdbcIdempotencyStore store = store();
        Reservation r = store.reserve("t", "k", "fp");
        assertFalse(store.replaceResponse(r.token(), response(200, "early")), "nothing recorded yet");
        assertTrue(store.complete(r.token(), response(404, "")));
        assertFalse(store.replaceResponse(new OwnershipToken("t", "k", "not-the-token"), response(200, "forged")));
        StoredResponse page = new StoredResponse(404, Arrays.asList(new Header("Content-Type", "text/html;charset=utf-8")),
                "<html>not here</html>".getBytes(java.nio.charset.StandardCharsets.UTF_8));
        assertTrue(store.replaceResponse(r.token(), page));
        Reservation retry = store.reserve("t", "k", "fp");
        assertEquals(Outcome.REPLAY, retry.outcome());
        assertEquals(page.headers(), retry.response().headers());
        assertArrayEquals(page.body(), retry.response().body());
        assertTrue(store.release(store.reserve("t", "other", "fp").token()));
        assertFalse(store.replaceResponse(new OwnershipToken("t", "other", "x"), page), "a released key holds no response");
    }

    // ---- release

    @Test
    void aReleasedKeyIsReacquiredByTheNextRequestWithTheSameFingerprint() {
        JdbcIdempotencyStore store = store();
        Reservation first = store.reserve("t", "k", "fp");
        assertTrue(store.release(first.token()));
        assertEquals(Outcome.MISMATCH, store.reserve("t", "k", "other").outcome());

        Reservation second = store.reserve("t", "k", "fp");
        assertEquals(Outcome.REACQUIRED, second.outcome());
        assertNotEquals(first.token(), second.token());
        assertFalse(store.complete(first.token(), response(200, "stale")), "the released owner no longer owns the key");
        assertTrue(store.complete(second.token(), response(200, "second")));
        assertEquals(2, store.find("t", "k").get().attempts());
    }

    // ---- expired leases

    @Test
    void underReconcileAnExpiredLeaseBecomesOutcomeUnknownAndIsNeverReexecuted() {
        JdbcIdempotencyStore store = open(settings().lease(SHORT).expiredLeasePolicy(ExpiredLeasePolicy.RECONCILE));
        store.reserve("t", "k", "fp");
        Await.until("the lease to expire", AWAIT, () -> store.reserve("t", "k", "fp").outcome(), o -> o != Outcome.IN_FLIGHT);
        for (int i = 0; i < 3; i++) assertEquals(Outcome.OUTCOME_UNKNOWN, store.reserve("t", "k", "fp").outcome());
        assertEquals(KeyStatus.UNKNOWN, store.find("t", "k").get().status());
        assertEquals(Outcome.MISMATCH, store.reserve("t", "k", "other").outcome());
    }

    @Test
    void aSlowOwnerThatFinishesAfterItsKeyBecameUnknownStillRecordsTheTruth() {
        JdbcIdempotencyStore store = open(settings().lease(SHORT));
        Reservation slow = store.reserve("t", "k", "fp");
        Await.until("the key to become unknown", AWAIT, () -> store.reserve("t", "k", "fp").outcome(), o -> o == Outcome.OUTCOME_UNKNOWN);
        assertTrue(store.complete(slow.token(), response(201, "late but real")));
        assertEquals("late but real", new String(store.reserve("t", "k", "fp").response().body()));
    }

    @Test
    void underRetryAnExpiredLeaseIsTakenOverAndTheStaleOwnerIsFencedOff() {
        JdbcIdempotencyStore store = open(settings().lease(SHORT).expiredLeasePolicy(ExpiredLeasePolicy.RETRY));
        Reservation stale = store.reserve("t", "k", "fp");
        Reservation takeover = Await.until("a takeover", AWAIT, () -> store.reserve("t", "k", "fp"),
                r -> r.outcome() != Outcome.IN_FLIGHT);
        assertEquals(Outcome.REACQUIRED, takeover.outcome());

        assertTrue(store.complete(takeover.token(), response(200, "new owner")));
        assertFalse(store.complete(stale.token(), response(200, "stale owner")), "fencing: the stale owner must not overwrite");
        assertFalse(store.release(stale.token()));
        assertEquals("new owner", new String(store.reserve("t", "k", "fp").response().body()));
    }

    @Test
    void renewKeepsASlowOwnersLeaseAcrossManyLeaseLengths() throws InterruptedException {
        // A lease of 1 s: long against one renew-and-check round even on a busy machine, short enough for 5 of them.
        Duration lease = Duration.ofSeconds(1);
        JdbcIdempotencyStore store = open(settings().lease(lease).expiredLeasePolicy(ExpiredLeasePolicy.RETRY));
        Reservation slow = store.reserve("t", "slow", "fp");
        Reservation other = store.reserve("t", "other", "fp");
        long end = System.nanoTime() + lease.toNanos() * 5;
        while (System.nanoTime() < end) {
            // The heartbeat itself: renewing every third of a lease is what the agent's heartbeat does.
            assertEquals(2, store.renew(Arrays.asList(slow.token(), other.token())));
            assertEquals(Outcome.IN_FLIGHT, store.reserve("t", "slow", "fp").outcome());
            Thread.sleep(lease.toMillis() / 3);
        }
        assertTrue(store.complete(slow.token(), response(200, "slow but fine")));
        assertEquals(Outcome.REPLAY, store.reserve("t", "slow", "fp").outcome());
    }

    @Test
    void renewIgnoresTokensThatNoLongerOwnTheirKey() {
        JdbcIdempotencyStore store = store();
        Reservation done = store.reserve("t", "done", "fp");
        store.complete(done.token(), response(200, "x"));
        Reservation live = store.reserve("t", "live", "fp");
        assertEquals(1, store.renew(Arrays.asList(done.token(), live.token(), new OwnershipToken("t", "live", "forged"))));
        assertEquals(0, store.renew(Collections.emptyList()));
    }

    @Test
    void renewHandlesMoreTokensThanOneStatementCarries() {
        JdbcIdempotencyStore store = store();
        List<OwnershipToken> tokens = new ArrayList<>();
        for (int i = 0; i < 450; i++) tokens.add(store.reserve("t", "k" + i, "fp").token());
        assertEquals(450, store.renew(tokens));
    }

    // ---- sweeper and purge

    @Test
    void theSweeperTurnsExpiredLeasesUnknownInBatchesUnderReconcile() {
        JdbcIdempotencyStore store = open(settings().lease(SHORT).batchSize(2));
        for (int i = 0; i < 5; i++) store.reserve("t", "k" + i, "fp");
        Reservation live = open(settings().lease(Duration.ofMinutes(5))).reserve("t", "live", "fp");
        Await.until("leases to expire", AWAIT, () -> store.reserve("t", "k4", "fp").outcome(), o -> o != Outcome.IN_FLIGHT);
        // k4 was turned unknown by the reserve above; the sweeper finds the other four.
        assertEquals(4, store.sweepExpiredLeases());
        assertEquals(0, store.sweepExpiredLeases());
        assertEquals(5, store.list(KeyStatus.UNKNOWN, 100).size());
        assertEquals(KeyStatus.IN_FLIGHT, store.find("t", "live").get().status());
        assertTrue(store.complete(live.token(), response(200, "ok")));
    }

    @Test
    void theSweeperMakesExpiredLeasesRetryableUnderRetry() {
        JdbcIdempotencyStore store = open(settings().lease(SHORT).expiredLeasePolicy(ExpiredLeasePolicy.RETRY).batchSize(2));
        List<OwnershipToken> stale = new ArrayList<>();
        for (int i = 0; i < 3; i++) stale.add(store.reserve("t", "k" + i, "fp").token());
        Await.until("leases to expire", AWAIT, store::sweepExpiredLeases, n -> n > 0);
        // The three leases run out a few milliseconds apart; a first sweep between them leaves the rest to later sweeps.
        Await.until("all leases swept", AWAIT, () -> {
            store.sweepExpiredLeases();
            return store.list(KeyStatus.RETRYABLE, 10).size();
        }, n -> n == 3);
        assertEquals(Outcome.REACQUIRED, store.reserve("t", "k0", "fp").outcome());
        assertFalse(store.complete(stale.get(1), response(200, "stale")));
    }

    @Test
    void thePurgeDeletesExpiredTerminalKeysOnlyInBatches() {
        JdbcIdempotencyStore shortLived = open(settings().ttl(SHORT).batchSize(2));
        for (int i = 0; i < 3; i++) shortLived.complete(shortLived.reserve("t", "done" + i, "fp").token(), response(200, "x"));
        shortLived.release(shortLived.reserve("t", "released", "fp").token());
        Reservation running = shortLived.reserve("t", "running", "fp");
        JdbcIdempotencyStore longLived = open(settings());
        longLived.complete(longLived.reserve("t", "fresh", "fp").token(), response(200, "x"));

        java.util.concurrent.atomic.AtomicInteger purged = new java.util.concurrent.atomic.AtomicInteger();
        Await.until("four keys purged", AWAIT, () -> purged.addAndGet(shortLived.purgeExpired()), n -> n >= 4);
        assertEquals(4, purged.get());
        assertEquals(0, shortLived.purgeExpired());
        assertFalse(shortLived.find("t", "done0").isPresent());
        assertFalse(shortLived.find("t", "released").isPresent());
        assertTrue(shortLived.find("t", "running").isPresent(), "an in-flight key is never purged");
        assertTrue(shortLived.find("t", "fresh").isPresent(), "an unexpired key is kept");
        assertTrue(shortLived.complete(running.token(), response(200, "ok")));
    }

    @Test
    void anExpiredKeyCountsAsNew() {
        JdbcIdempotencyStore store = open(settings().ttl(SHORT));
        Reservation first = store.reserve("t", "k", "fp-1");
        store.complete(first.token(), response(200, "old"));
        Reservation again = Await.until("the key to expire", AWAIT, () -> store.reserve("t", "k", "fp-2"),
                r -> r.outcome() != Outcome.MISMATCH);
        assertEquals(Outcome.ACQUIRED, again.outcome());
        KeyRecord record = store.find("t", "k").get();
        assertEquals(1, record.attempts());
        assertEquals("fp-2", record.fingerprint());
        assertFalse(record.response().isPresent());
    }

    // ---- operators

    @Test
    void operatorsFindListAndResolveUnknownKeys() {
        JdbcIdempotencyStore store = open(settings().lease(SHORT));
        store.reserve("t", "retry-me", "fp");
        store.reserve("t", "complete-me", "fp");
        Await.until("both keys unknown", AWAIT, () -> {
            store.sweepExpiredLeases();
            return store.list(KeyStatus.UNKNOWN, 10).size();
        }, n -> n == 2);

        KeyRecord found = store.find("t", "retry-me").get();
        assertEquals(KeyStatus.UNKNOWN, found.status());
        assertEquals("fp", found.fingerprint());
        assertTrue(found.createdAt().isBefore(found.expiresAt()));
        assertFalse(store.find("t", "absent").isPresent());

        assertTrue(store.resolveForRetry("t", "retry-me"));
        assertFalse(store.resolveForRetry("t", "retry-me"), "only unknown keys are resolved");
        assertEquals(Outcome.REACQUIRED, store.reserve("t", "retry-me", "fp").outcome());

        StoredResponse decided = response(200, "settled by an operator");
        assertTrue(store.resolveAsCompleted("t", "complete-me", decided));
        Reservation replay = store.reserve("t", "complete-me", "fp");
        assertEquals(Outcome.REPLAY, replay.outcome());
        assertEquals(decided, replay.response());
        assertTrue(store.list(KeyStatus.UNKNOWN, 10).isEmpty());
    }

    @Test
    void aDeletedKeyCountsAsNew() {
        JdbcIdempotencyStore store = store();
        store.complete(store.reserve("t", "k", "fp").token(), response(200, "x"));
        assertTrue(store.delete("t", "k"));
        assertFalse(store.delete("t", "k"));
        assertEquals(Outcome.ACQUIRED, store.reserve("t", "k", "other").outcome());
    }

    @Test
    void listReturnsKeysOfOneStatusUpToTheLimit() {
        JdbcIdempotencyStore store = store();
        for (int i = 0; i < 4; i++) store.reserve("t", "k" + i, "fp");
        store.complete(store.reserve("t", "done", "fp").token(), response(200, "x"));
        assertEquals(3, store.list(KeyStatus.IN_FLIGHT, 3).size());
        List<KeyRecord> completed = store.list(KeyStatus.COMPLETED, 10);
        assertEquals(1, completed.size());
        assertEquals("done", completed.get(0).key());
    }

    @Test
    void anOperatorQueryFiltersByStatusScopeAndAgeOldestFirst() {
        JdbcIdempotencyStore store = store();
        store.complete(store.reserve("tenant-a", "old", "fp").token(), response(201, "x"));
        store.reserve("tenant-a", "running", "fp");
        store.reserve("tenant-b", "other", "fp");
        setTimestamp("tenant-a", "old", "created_at", -7200);

        assertEquals(Arrays.asList("old", "running", "other"), keys(store.list(KeyQuery.all(10))));
        assertEquals(Arrays.asList("old", "running"), keys(store.list(KeyQuery.all(10).inScope("tenant-a"))));
        assertEquals(Collections.singletonList("running"),
                keys(store.list(KeyQuery.all(10).inScope("tenant-a").withStatus(KeyStatus.IN_FLIGHT))));
        assertEquals(Collections.singletonList("old"), keys(store.list(KeyQuery.all(10).olderThan(Duration.ofHours(1)))));
        assertEquals(2, store.list(KeyQuery.all(2)).size());
        assertTrue(store.list(KeyQuery.all(10).inScope("tenant-c")).isEmpty());
    }

    @Test
    void countsByStatusCoverEveryKey() {
        JdbcIdempotencyStore store = store();
        for (int i = 0; i < 3; i++) store.reserve("t", "running-" + i, "fp");
        store.complete(store.reserve("t", "done", "fp").token(), response(200, "x"));
        store.release(store.reserve("t", "given-up", "fp").token());
        Map<KeyStatus, Long> counts = store.countByStatus();
        assertEquals(Long.valueOf(3), counts.get(KeyStatus.IN_FLIGHT));
        assertEquals(Long.valueOf(1), counts.get(KeyStatus.COMPLETED));
        assertEquals(Long.valueOf(1), counts.get(KeyStatus.RETRYABLE));
        assertFalse(counts.containsKey(KeyStatus.UNKNOWN));
    }

    @Test
    void theDatabaseClockIsReadAsAnInstantNearThisMachinesClock() {
        Instant before = Instant.now();
        Instant database = store().databaseTime();
        Instant after = Instant.now();
        // The database runs on this machine: its clock and ours agree within the statement's duration and a margin.
        assertTrue(!database.isBefore(before.minusSeconds(2)) && !database.isAfter(after.plusSeconds(2)),
                before + " <= " + database + " <= " + after);
    }

    @Test
    void aKeyHeldUnderALiveLeaseIsNeitherDeletedNorResolved() {
        JdbcIdempotencyStore store = store();
        OwnershipToken owner = store.reserve("t", "k", "fp").token();
        assertFalse(store.delete("t", "k"));
        assertFalse(store.resolveForRetry("t", "k"));
        assertFalse(store.resolveAsCompleted("t", "k", response(200, "decided")));
        assertEquals(Outcome.IN_FLIGHT, store.reserve("t", "k", "fp").outcome());
        assertTrue(store.complete(owner, response(200, "the owner's own answer")));
    }

    @Test
    void aKeyInFlightPastItsLeaseCanBeResolvedBeforeTheSweeperMarksIt() {
        JdbcIdempotencyStore store = store();
        OwnershipToken owner = store.reserve("t", "k", "fp").token();
        setTimestamp("t", "k", "lease_expires_at", -1);
        StoredResponse decided = response(200, "settled by an operator");
        assertTrue(store.resolveAsCompleted("t", "k", decided));
        assertFalse(store.complete(owner, response(500, "a late owner")), "the decision stands");
        assertEquals(decided, store.reserve("t", "k", "fp").response());

        store.reserve("t", "k2", "fp");
        setTimestamp("t", "k2", "lease_expires_at", -1);
        assertTrue(store.resolveForRetry("t", "k2"));
        assertEquals(Outcome.REACQUIRED, store.reserve("t", "k2", "fp").outcome());
    }

    @Test
    void purgeReportsEachBatch() {
        JdbcIdempotencyStore store = open(settings().batchSize(2));
        for (int i = 0; i < 5; i++) {
            store.complete(store.reserve("t", "k" + i, "fp").token(), response(200, "x"));
            setTimestamp("t", "k" + i, "expires_at", -1);
        }
        List<Integer> batches = new ArrayList<>();
        assertEquals(5, store.purgeExpired(batches::add));
        assertEquals(Arrays.asList(2, 2, 1), batches);
    }

    @Test
    void theOwnerOfTheTableHasEveryPrivilegeTheStoreNeeds() {
        JdbcIdempotencyStore store = store();
        assertEquals(Collections.emptyList(), store.privilegeProblems(true));
        assertEquals(0, store.list(KeyQuery.all(10)).size(), "the probe leaves nothing behind");
    }

    private static List<String> keys(List<KeyRecord> records) {
        List<String> keys = new ArrayList<>();
        for (KeyRecord r : records) keys.add(r.key());
        return keys;
    }

    // ---- races

    @Test
    void thirtyTwoThreadsReservingOneKeyGetExactlyOneAcquisitionPerKey() throws Exception {
        JdbcIdempotencyStore store = open(settings().poolSize(16));
        int threads = 32;
        int keys = 40;
        ExecutorService pool = Executors.newFixedThreadPool(threads);
        try {
            for (int k = 0; k < keys; k++) {
                String key = "race-" + k;
                CyclicBarrier start = new CyclicBarrier(threads);
                List<Future<Outcome>> outcomes = new ArrayList<>();
                for (int t = 0; t < threads; t++) {
                    outcomes.add(pool.submit(() -> {
                        start.await(10, TimeUnit.SECONDS);
                        return store.reserve("t", key, "fp").outcome();
                    }));
                }
                Map<Outcome, Integer> counts = new ConcurrentHashMap<>();
                for (Future<Outcome> f : outcomes) counts.merge(f.get(30, TimeUnit.SECONDS), 1, Integer::sum);
                assertEquals(1, counts.getOrDefault(Outcome.ACQUIRED, 0), key + ": " + counts);
                assertEquals(threads - 1, counts.getOrDefault(Outcome.IN_FLIGHT, 0), key + ": " + counts);
            }
        } finally {
            pool.shutdownNow();
        }
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

    @Test
    void racingTakeoversOfAnExpiredLeaseLeaveExactlyOneOwner() throws Exception {
        // The first owner's lease is short; the racers' is long, so that the winner's own lease cannot run out while the
        // others are still racing on a slow machine (which would make a second takeover legitimate).
        JdbcIdempotencyStore firstOwner = open(settings().lease(SHORT));
        JdbcIdempotencyStore store = open(settings().lease(Duration.ofSeconds(30)).expiredLeasePolicy(ExpiredLeasePolicy.RETRY).poolSize(16));
        int threads = 16;
        ExecutorService pool = Executors.newFixedThreadPool(threads);
        try {
            for (int k = 0; k < 5; k++) {
                String key = "takeover-" + k;
                firstOwner.reserve("t", key, "fp");
                Await.until("lease expiry of " + key, AWAIT, () -> leaseExpired(key), expired -> expired);
                CyclicBarrier start = new CyclicBarrier(threads);
                List<Future<Reservation>> results = new ArrayList<>();
                for (int t = 0; t < threads; t++) {
                    results.add(pool.submit(() -> {
                        start.await(10, TimeUnit.SECONDS);
                        return store.reserve("t", key, "fp");
                    }));
                }
                List<OwnershipToken> owners = new ArrayList<>();
                for (Future<Reservation> f : results) {
                    Reservation r = f.get(30, TimeUnit.SECONDS);
                    if (r.owned()) owners.add(r.token());
                    else assertEquals(Outcome.IN_FLIGHT, r.outcome());
                }
                assertEquals(1, owners.size(), key + " owners: " + owners);
            }
        } finally {
            pool.shutdownNow();
        }
    }

    /** Whether the key's lease has run out by the database's clock, observed without changing the key. */
    private boolean leaseExpired(String key) {
        try (Connection c = connect(); java.sql.PreparedStatement ps = c.prepareStatement("SELECT COUNT(*) FROM " + table
                + " WHERE scope = 't' AND idem_key = ? AND lease_expires_at < " + databaseNow())) {
            ps.setString(1, key);
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
    private void setTimestamp(String scope, String key, String column, long seconds) {
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

    @Test
    void oversizedIdentifiersAreRejectedBeforeTheyReachTheDatabase() {
        JdbcIdempotencyStore store = store();
        char[] big = new char[256];
        Arrays.fill(big, 'x');
        assertThrows(IllegalArgumentException.class, () -> store.reserve("t", new String(big), "fp"));
        assertThrows(IllegalArgumentException.class, () -> store.reserve(new String(big), "k", "fp"));
        assertThrows(IllegalArgumentException.class, () -> store.reserve("t", "", "fp"));
        assertEquals(Outcome.ACQUIRED, store.reserve("t", new String(big, 0, 255), "fp").outcome());
    }
    // ---- byte-for-byte identity

    @Test
    void trailingAndLeadingSpacesMakeDifferentKeysAndScopes() {
        JdbcIdempotencyStore store = store();
        store.complete(store.reserve("tenant", "abc", "fp").token(), response(200, "plain"));
        for (String[] other : new String[][] {{"tenant", "abc "}, {"tenant", " abc"}, {"tenant", "abc  "}, {"tenant ", "abc"}, {" tenant", "abc"}}) {
            Reservation r = store.reserve(other[0], other[1], "fp");
            assertEquals(Outcome.ACQUIRED, r.outcome(), "[" + other[0] + "]/[" + other[1] + "] must be a key of its own");
            store.complete(r.token(), response(200, "[" + other[0] + "]/[" + other[1] + "]"));
        }
        assertEquals("plain", new String(store.reserve("tenant", "abc", "fp").response().body()));
        assertEquals("[tenant]/[abc ]", new String(store.reserve("tenant", "abc ", "fp").response().body()));
        assertEquals("[tenant ]/[abc]", new String(store.reserve("tenant ", "abc", "fp").response().body()));
        KeyRecord spaced = store.find("tenant ", "abc ").orElse(null);
        assertEquals(null, spaced, "no such key: 'tenant '/'abc ' was never reserved");
        assertEquals("abc ", store.find("tenant", "abc ").get().key());
        assertEquals("tenant ", store.find("tenant ", "abc").get().scope());
        assertEquals(6, store.list(KeyStatus.COMPLETED, 100).size());
    }

    @Test
    void fingerprintsAndTokensCompareByteForByteToo() {
        JdbcIdempotencyStore store = store();
        Reservation r = store.reserve("t", "k", "fp");
        assertEquals(Outcome.MISMATCH, store.reserve("t", "k", "fp ").outcome());
        OwnershipToken padded = new OwnershipToken("t", "k", r.token().token() + " ");
        assertFalse(store.complete(padded, response(200, "forged")), "a token with a trailing space is another token");
        assertFalse(store.release(padded));
        assertTrue(store.complete(r.token(), response(200, "real")));
    }

    @Test
    void nonAsciiScopesAndKeysRoundTripAndStayDistinct() {
        JdbcIdempotencyStore store = store();
        String scope = "t\u00ebnant \u20ac\uD83D\uDE00";
        String composed = "caf\u00e9";
        String decomposed = "cafe\u0301";
        assertEquals(Outcome.ACQUIRED, store.reserve(scope, composed, "fp").outcome());
        assertEquals(Outcome.ACQUIRED, store.reserve(scope, decomposed, "fp").outcome(), "no Unicode normalisation: other bytes, other key");
        assertEquals(Outcome.IN_FLIGHT, store.reserve(scope, composed, "fp").outcome());
        KeyRecord record = store.find(scope, decomposed).get();
        assertEquals(scope, record.scope());
        assertEquals(decomposed, record.key());
    }

    // ---- expiry of keys acquired again

    @Test
    void aReleasedKeyAcquiredAgainLivesAFullTtlFromThen() {
        JdbcIdempotencyStore store = open(settings().ttl(Duration.ofHours(1)));
        Reservation first = store.reserve("t", "k", "fp");
        setTimestamp("t", "k", "expires_at", 60); // the key is near the end of its life
        assertTrue(store.release(first.token()));
        assertEquals(Outcome.REACQUIRED, store.reserve("t", "k", "fp").outcome());
        assertLivesAFullHourFromItsLastChange(store.find("t", "k").get());
    }

    @Test
    void aKeyTakenOverAfterItsLeaseExpiredUnderRetryLivesAFullTtlFromThen() {
        JdbcIdempotencyStore store = open(settings().ttl(Duration.ofHours(1)).lease(SHORT).expiredLeasePolicy(ExpiredLeasePolicy.RETRY));
        store.reserve("t", "k", "fp");
        setTimestamp("t", "k", "expires_at", 60);
        Reservation takeover = Await.until("a takeover", AWAIT, () -> store.reserve("t", "k", "fp"), r -> r.outcome() != Outcome.IN_FLIGHT);
        assertEquals(Outcome.REACQUIRED, takeover.outcome());
        assertLivesAFullHourFromItsLastChange(store.find("t", "k").get());
    }

    @Test
    void aKeyResolvedForRetryAndAcquiredAgainLivesAFullTtlFromThen() {
        JdbcIdempotencyStore store = open(settings().ttl(Duration.ofHours(1)).lease(SHORT));
        store.reserve("t", "k", "fp");
        Await.until("the key to become unknown", AWAIT, () -> store.reserve("t", "k", "fp").outcome(), o -> o == Outcome.OUTCOME_UNKNOWN);
        setTimestamp("t", "k", "expires_at", 60);
        assertTrue(store.resolveForRetry("t", "k"));
        assertEquals(Outcome.REACQUIRED, store.reserve("t", "k", "fp").outcome());
        assertLivesAFullHourFromItsLastChange(store.find("t", "k").get());
    }

    @Test
    void aKeyResolvedAsCompletedIsReplayedForAFullTtlFromTheDecision() {
        JdbcIdempotencyStore store = open(settings().ttl(Duration.ofHours(1)).lease(SHORT));
        store.reserve("t", "k", "fp");
        Await.until("the key to become unknown", AWAIT, () -> store.reserve("t", "k", "fp").outcome(), o -> o == Outcome.OUTCOME_UNKNOWN);
        setTimestamp("t", "k", "expires_at", 60);
        assertTrue(store.resolveAsCompleted("t", "k", response(200, "decided")));
        assertLivesAFullHourFromItsLastChange(store.find("t", "k").get());
    }

    private static void assertLivesAFullHourFromItsLastChange(KeyRecord record) {
        Duration left = Duration.between(record.updatedAt(), record.expiresAt());
        assertTrue(left.compareTo(Duration.ofMinutes(59)) > 0 && left.compareTo(Duration.ofMinutes(61)) < 0,
                "expires " + left + " after its last change: " + record);
    }

    // ---- bounds

    @Test
    void theLongestTtlAndLeaseStayInRangeOfTheDatabasesTimestamps() {
        JdbcIdempotencyStore store = open(settings().ttl(StoreSettings.MAX_TTL).lease(StoreSettings.MAX_LEASE)
                .unknownRetention(StoreSettings.MAX_UNKNOWN_RETENTION));
        Reservation r = store.reserve("t", "k", "fp");
        Reservation second = store.reserve("t", "k", "fp");
        assertEquals(Outcome.IN_FLIGHT, second.outcome());
        assertTrue(second.leaseRemainingMillis() > 3_590_000 && second.leaseRemainingMillis() <= 3_600_000, "lease left " + second.leaseRemainingMillis());
        assertTrue(store.complete(r.token(), response(200, "kept for a year")));
        assertEquals(Outcome.REPLAY, store.reserve("t", "k", "fp").outcome(), "a year-long ttl must not read as expired");
        KeyRecord record = store.find("t", "k").get();
        assertTrue(Duration.between(record.createdAt(), record.expiresAt()).toDays() >= 364, record.toString());
        assertEquals(0, store.purgeExpired());
        assertTrue(store.find("t", "k").isPresent());
    }

    // ---- the sweep reads only leases that ran out since it last looked; the purge catches the rest

    @Test
    void aSweepLooksBackToThePreviousSweepAndThePurgeTakesAnAbandonedKeyOnceItsTtlIsOver() {
        JdbcIdempotencyStore store = open(settings().lease(Duration.ofMinutes(5)));
        store.reserve("t", "abandoned-recently", "fp");
        store.reserve("t", "abandoned-long-ago", "fp");
        // Leases that ran out while no node swept: ten minutes ago, inside the first sweep's look-back, and two hours
        // ago, beyond it.
        setTimestamp("t", "abandoned-recently", "lease_expires_at", -600);
        setTimestamp("t", "abandoned-long-ago", "lease_expires_at", -2 * 3600);
        assertEquals(1, store.sweepExpiredLeases(), "the first sweep looks back an hour");
        assertEquals(KeyStatus.UNKNOWN, store.find("t", "abandoned-recently").get().status());
        assertEquals(KeyStatus.IN_FLIGHT, store.find("t", "abandoned-long-ago").get().status());
        // A lease that ran out a minute before this sweep but after the previous one started is inside the next look-back
        // (the previous start, less a margin); one that ran out ten minutes before is not read again.
        store.reserve("t", "abandoned-since", "fp");
        setTimestamp("t", "abandoned-since", "lease_expires_at", -1);
        store.reserve("t", "seen-before", "fp");
        setTimestamp("t", "seen-before", "lease_expires_at", -600);
        assertEquals(1, store.sweepExpiredLeases());
        assertEquals(KeyStatus.UNKNOWN, store.find("t", "abandoned-since").get().status());
        assertEquals(KeyStatus.IN_FLIGHT, store.find("t", "seen-before").get().status());
        // Nothing stays in flight for ever: once its ttl is over, the purge makes it unknown (kept for the retention).
        setTimestamp("t", "abandoned-long-ago", "expires_at", -60);
        store.purgeExpired();
        KeyRecord caught = store.find("t", "abandoned-long-ago").get();
        assertEquals(KeyStatus.UNKNOWN, caught.status());
        assertFalse(caught.leaseExpiresAt().isPresent(), caught.toString());
        assertEquals(KeyStatus.IN_FLIGHT, store.find("t", "seen-before").get().status(), "its ttl is not over");
    }

    @Test
    void underRetryThePurgeReleasesAnAbandonedKeyWhoseTtlIsOverAndThenForgetsIt() {
        JdbcIdempotencyStore store = open(settings().lease(Duration.ofMinutes(5)).expiredLeasePolicy(ExpiredLeasePolicy.RETRY));
        store.reserve("t", "abandoned", "fp");
        setTimestamp("t", "abandoned", "lease_expires_at", -2 * 3600);
        setTimestamp("t", "abandoned", "expires_at", -60);
        assertEquals(0, store.sweepExpiredLeases(), "beyond the first sweep's look-back");
        store.purgeExpired();
        // Released, then purged as any expired retryable key (with time partitions: when its partition goes).
        store.find("t", "abandoned").ifPresent(k -> assertEquals(KeyStatus.RETRYABLE, k.status()));
        assertEquals(Outcome.ACQUIRED, store.reserve("t", "abandoned", "another fp").outcome(), "an expired key is new");
    }

    @Test
    void aCompletedKeyShowsNoLease() {
        JdbcIdempotencyStore store = store();
        Reservation r = store.reserve("t", "done", "fp");
        assertTrue(store.find("t", "done").get().leaseExpiresAt().isPresent(), "a key in flight has its lease");
        assertTrue(store.complete(r.token(), response(201, "made")));
        assertFalse(store.find("t", "done").get().leaseExpiresAt().isPresent());
        assertFalse(store.list(KeyStatus.COMPLETED, 10).get(0).leaseExpiresAt().isPresent());
        assertEquals(0, store.sweepExpiredLeases(), "its lease, left as it was, runs out: still not swept");
        setTimestamp("t", "done", "lease_expires_at", -60);
        assertEquals(0, store.sweepExpiredLeases());
        assertEquals(KeyStatus.COMPLETED, store.find("t", "done").get().status());
    }

    // ---- unknown keys are not kept forever

    @Test
    void thePurgeDeletesKeysUnknownForLongerThanTheRetentionOnceTheirTtlRanOut() {
        JdbcIdempotencyStore store = open(settings().lease(SHORT).ttl(Duration.ofHours(1)).unknownRetention(Duration.ofHours(2)));
        for (String key : new String[] {"old", "recent", "old-but-young-key"}) store.reserve("t", key, "fp");
        Await.until("three keys unknown", AWAIT, () -> {
            store.sweepExpiredLeases();
            return store.list(KeyStatus.UNKNOWN, 10).size();
        }, n -> n == 3);
        // "old" became unknown three hours ago and its ttl ran out; "recent" one hour ago; the third three hours ago,
        // but its ttl has not run out.
        for (String key : new String[] {"old", "recent", "old-but-young-key"}) setTimestamp("t", key, "expires_at", -60);
        setTimestamp("t", "old", "updated_at", -3 * 3600);
        setTimestamp("t", "recent", "updated_at", -3600);
        setTimestamp("t", "old-but-young-key", "updated_at", -3 * 3600);
        setTimestamp("t", "old-but-young-key", "expires_at", 60);

        assertEquals(1, store.purgeExpired());
        assertFalse(store.find("t", "old").isPresent());
        assertTrue(store.find("t", "recent").isPresent());
        assertTrue(store.find("t", "old-but-young-key").isPresent());
        assertEquals(0, store.purgeExpired());
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

    // ---- a reservation whose answer was lost

    @Test
    void releasingATokenThatNeverGotInIsAHarmlessNoOp() {
        JdbcIdempotencyStore store = store();
        assertFalse(store.release(new OwnershipToken("t", "never", "00000000-0000-0000-0000-000000000000")));
        assertFalse(store.find("t", "never").isPresent());
        Reservation owner = store.reserve("t", "k", "fp");
        assertFalse(store.release(new OwnershipToken("t", "k", "00000000-0000-0000-0000-000000000000")));
        assertEquals(Outcome.IN_FLIGHT, store.reserve("t", "k", "fp").outcome(), "the real owner keeps its key");
        assertTrue(store.complete(owner.token(), response(200, "x")));
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

    // ---- installation secret

    @Test
    void theInstallationSecretIs32RandomBytesKeptInTheStore() {
        JdbcIdempotencyStore first = store();
        byte[] secret = first.installationSecret();
        assertEquals(32, secret.length);
        assertFalse(Arrays.equals(new byte[32], secret));
        secret[0] ^= 1;
        assertFalse(Arrays.equals(secret, first.installationSecret()), "callers get a copy");
        secret[0] ^= 1;
        assertArrayEquals(secret, first.installationSecret());
        first.close();
        assertArrayEquals(secret, store().installationSecret(), "a restarted node reads the same secret");
        assertArrayEquals(secret, open(settings().schemaMode(SchemaMode.VALIDATE)).installationSecret());
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
}
