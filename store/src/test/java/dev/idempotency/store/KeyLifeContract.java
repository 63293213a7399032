package dev.idempotency.store;

import dev.idempotency.store.Reservation.Outcome;
import dev.idempotency.store.StoredResponse.Header;
import dev.idempotency.store.testing.Await;
import org.junit.jupiter.api.Test;

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
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * What every store family does with a key, whatever holds it: reservation and its answers, replay byte for byte,
 * fencing by ownership token, leases and the expired-lease policies, renewal, the sweep and the purge, the operator's
 * side, the installation secret. A family's contract supplies the store and moves a key's times the way its storage
 * allows ({@link JdbcStoreContract}); what only that family has (a schema, pools, group commit) is tested there.
 */
abstract class KeyLifeContract<S extends IdempotencyStore> {
    /** The settings of a store under test, on which each test may change what it needs. */
    protected abstract StoreSettings.Builder settings();

    /** Opens a store under test; the family's contract closes it after the test. */
    protected abstract S open(StoreSettings.Builder builder);

    protected S store() {
        return open(settings());
    }

    /** The times a key carries, which the tests move to make time pass. */
    protected enum KeyTime { CREATED, UPDATED, LEASE_EXPIRES, EXPIRES }

    /** Moves one of a key's times to now plus {@code seconds} on the store's own clock: time passing, honestly. */
    protected abstract void setTime(String scope, String key, KeyTime time, long seconds);

    /** Whether the key's lease has run out by the store's clock, observed without changing the key. */
    protected abstract boolean leaseRanOut(String scope, String key);

    static final Duration SHORT = Duration.ofMillis(300);
    static final Duration AWAIT = Duration.ofSeconds(10);

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
        S store = store();
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
        S store = store();
        Reservation first = store.reserve("t", "k", "fp");
        store.complete(first.token(), new StoredResponse(204, Collections.emptyList(), new byte[0]));
        StoredResponse replayed = store.reserve("t", "k", "fp").response();
        assertEquals(204, replayed.status());
        assertEquals(0, replayed.bodyLength());
        assertTrue(replayed.headers().isEmpty());
    }

    @Test
    void aKeyInFlightReportsTheTimeLeftOnItsLease() {
        S store = open(settings().lease(Duration.ofSeconds(30)));
        store.reserve("t", "k", "fp");
        Reservation second = store.reserve("t", "k", "fp");
        assertEquals(Outcome.IN_FLIGHT, second.outcome());
        assertTrue(second.leaseRemainingMillis() > 25_000 && second.leaseRemainingMillis() <= 30_000,
                "lease left: " + second.leaseRemainingMillis());
        assertFalse(second.owned());
    }

    @Test
    void aDifferentFingerprintIsAMismatchWhileInFlightAndOnceCompleted() {
        S store = store();
        Reservation first = store.reserve("t", "k", "fp-a");
        assertEquals(Outcome.MISMATCH, store.reserve("t", "k", "fp-b").outcome());
        store.complete(first.token(), response(200, "ok"));
        assertEquals(Outcome.MISMATCH, store.reserve("t", "k", "fp-b").outcome());
        assertEquals(Outcome.REPLAY, store.reserve("t", "k", "fp-a").outcome());
    }

    @Test
    void scopesAreIndependent() {
        S store = store();
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
        S store = store();
        store.reserve("Tenant", "Key", "fp");
        assertEquals(Outcome.ACQUIRED, store.reserve("Tenant", "KEY", "fp").outcome());
        assertEquals(Outcome.ACQUIRED, store.reserve("TENANT", "Key", "fp").outcome());
    }

    @Test
    void completeOnlyOnceAndOnlyByTheOwner() {
        S store = store();
        Reservation r = store.reserve("t", "k", "fp");
        assertFalse(store.complete(new OwnershipToken("t", "k", "not-the-token"), response(200, "forged")));
        assertTrue(store.complete(r.token(), response(200, "first")));
        assertFalse(store.complete(r.token(), response(200, "second")));
        assertEquals("first", new String(store.reserve("t", "k", "fp").response().body()));
    }

    @Test
    void aRecordedResponseIsReplacedOnlyByItsOwnerAndOnlyOnceCompleted() {
        S store = store();
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
        S store = store();
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
        S store = open(settings().lease(SHORT).expiredLeasePolicy(ExpiredLeasePolicy.RECONCILE));
        store.reserve("t", "k", "fp");
        Await.until("the lease to expire", AWAIT, () -> store.reserve("t", "k", "fp").outcome(), o -> o != Outcome.IN_FLIGHT);
        for (int i = 0; i < 3; i++) assertEquals(Outcome.OUTCOME_UNKNOWN, store.reserve("t", "k", "fp").outcome());
        assertEquals(KeyStatus.UNKNOWN, store.find("t", "k").get().status());
        assertEquals(Outcome.MISMATCH, store.reserve("t", "k", "other").outcome());
    }

    @Test
    void aSlowOwnerThatFinishesAfterItsKeyBecameUnknownStillRecordsTheTruth() {
        S store = open(settings().lease(SHORT));
        Reservation slow = store.reserve("t", "k", "fp");
        Await.until("the key to become unknown", AWAIT, () -> store.reserve("t", "k", "fp").outcome(), o -> o == Outcome.OUTCOME_UNKNOWN);
        assertTrue(store.complete(slow.token(), response(201, "late but real")));
        assertEquals("late but real", new String(store.reserve("t", "k", "fp").response().body()));
    }

    @Test
    void underRetryAnExpiredLeaseIsTakenOverAndTheStaleOwnerIsFencedOff() {
        S store = open(settings().lease(SHORT).expiredLeasePolicy(ExpiredLeasePolicy.RETRY));
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
        S store = open(settings().lease(lease).expiredLeasePolicy(ExpiredLeasePolicy.RETRY));
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
        S store = store();
        Reservation done = store.reserve("t", "done", "fp");
        store.complete(done.token(), response(200, "x"));
        Reservation live = store.reserve("t", "live", "fp");
        assertEquals(1, store.renew(Arrays.asList(done.token(), live.token(), new OwnershipToken("t", "live", "forged"))));
        assertEquals(0, store.renew(Collections.emptyList()));
    }

    @Test
    void renewHandlesMoreTokensThanOneStatementCarries() {
        S store = store();
        List<OwnershipToken> tokens = new ArrayList<>();
        for (int i = 0; i < 450; i++) tokens.add(store.reserve("t", "k" + i, "fp").token());
        assertEquals(450, store.renew(tokens));
    }

    // ---- sweeper and purge

    @Test
    void theSweeperTurnsExpiredLeasesUnknownInBatchesUnderReconcile() {
        S store = open(settings().lease(SHORT).batchSize(2));
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
        S store = open(settings().lease(SHORT).expiredLeasePolicy(ExpiredLeasePolicy.RETRY).batchSize(2));
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
        S shortLived = open(settings().ttl(SHORT).batchSize(2));
        for (int i = 0; i < 3; i++) shortLived.complete(shortLived.reserve("t", "done" + i, "fp").token(), response(200, "x"));
        shortLived.release(shortLived.reserve("t", "released", "fp").token());
        Reservation running = shortLived.reserve("t", "running", "fp");
        S longLived = open(settings());
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
        S store = open(settings().ttl(SHORT));
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
        S store = open(settings().lease(SHORT));
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
        S store = store();
        store.complete(store.reserve("t", "k", "fp").token(), response(200, "x"));
        assertTrue(store.delete("t", "k"));
        assertFalse(store.delete("t", "k"));
        assertEquals(Outcome.ACQUIRED, store.reserve("t", "k", "other").outcome());
    }

    @Test
    void listReturnsKeysOfOneStatusUpToTheLimit() {
        S store = store();
        for (int i = 0; i < 4; i++) store.reserve("t", "k" + i, "fp");
        store.complete(store.reserve("t", "done", "fp").token(), response(200, "x"));
        assertEquals(3, store.list(KeyStatus.IN_FLIGHT, 3).size());
        List<KeyRecord> completed = store.list(KeyStatus.COMPLETED, 10);
        assertEquals(1, completed.size());
        assertEquals("done", completed.get(0).key());
    }

    @Test
    void anOperatorQueryFiltersByStatusScopeAndAgeOldestFirst() {
        S store = store();
        store.complete(store.reserve("tenant-a", "old", "fp").token(), response(201, "x"));
        store.reserve("tenant-a", "running", "fp");
        store.reserve("tenant-b", "other", "fp");
        setTime("tenant-a", "old", KeyTime.CREATED, -7200);

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
        S store = store();
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
        S store = store();
        OwnershipToken owner = store.reserve("t", "k", "fp").token();
        assertFalse(store.delete("t", "k"));
        assertFalse(store.resolveForRetry("t", "k"));
        assertFalse(store.resolveAsCompleted("t", "k", response(200, "decided")));
        assertEquals(Outcome.IN_FLIGHT, store.reserve("t", "k", "fp").outcome());
        assertTrue(store.complete(owner, response(200, "the owner's own answer")));
    }

    @Test
    void aKeyInFlightPastItsLeaseCanBeResolvedBeforeTheSweeperMarksIt() {
        S store = store();
        OwnershipToken owner = store.reserve("t", "k", "fp").token();
        setTime("t", "k", KeyTime.LEASE_EXPIRES, -1);
        StoredResponse decided = response(200, "settled by an operator");
        assertTrue(store.resolveAsCompleted("t", "k", decided));
        assertFalse(store.complete(owner, response(500, "a late owner")), "the decision stands");
        assertEquals(decided, store.reserve("t", "k", "fp").response());

        store.reserve("t", "k2", "fp");
        setTime("t", "k2", KeyTime.LEASE_EXPIRES, -1);
        assertTrue(store.resolveForRetry("t", "k2"));
        assertEquals(Outcome.REACQUIRED, store.reserve("t", "k2", "fp").outcome());
    }

    @Test
    void purgeReportsEachBatch() {
        S store = open(settings().batchSize(2));
        for (int i = 0; i < 5; i++) {
            store.complete(store.reserve("t", "k" + i, "fp").token(), response(200, "x"));
            setTime("t", "k" + i, KeyTime.EXPIRES, -1);
        }
        List<Integer> batches = new ArrayList<>();
        assertEquals(5, store.purgeExpired(batches::add));
        assertEquals(Arrays.asList(2, 2, 1), batches);
    }

    static List<String> keys(List<KeyRecord> records) {
        List<String> keys = new ArrayList<>();
        for (KeyRecord r : records) keys.add(r.key());
        return keys;
    }

    // ---- races

    @Test
    void thirtyTwoThreadsReservingOneKeyGetExactlyOneAcquisitionPerKey() throws Exception {
        S store = open(settings().poolSize(16));
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
    void racingTakeoversOfAnExpiredLeaseLeaveExactlyOneOwner() throws Exception {
        // The first owner's lease is short; the racers' is long, so that the winner's own lease cannot run out while the
        // others are still racing on a slow machine (which would make a second takeover legitimate).
        S firstOwner = open(settings().lease(SHORT));
        S store = open(settings().lease(Duration.ofSeconds(30)).expiredLeasePolicy(ExpiredLeasePolicy.RETRY).poolSize(16));
        int threads = 16;
        ExecutorService pool = Executors.newFixedThreadPool(threads);
        try {
            for (int k = 0; k < 5; k++) {
                String key = "takeover-" + k;
                firstOwner.reserve("t", key, "fp");
                Await.until("lease expiry of " + key, AWAIT, () -> leaseRanOut("t", key), expired -> expired);
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

    @Test
    void oversizedIdentifiersAreRejectedBeforeTheyReachTheDatabase() {
        S store = store();
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
        S store = store();
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
        S store = store();
        Reservation r = store.reserve("t", "k", "fp");
        assertEquals(Outcome.MISMATCH, store.reserve("t", "k", "fp ").outcome());
        OwnershipToken padded = new OwnershipToken("t", "k", r.token().token() + " ");
        assertFalse(store.complete(padded, response(200, "forged")), "a token with a trailing space is another token");
        assertFalse(store.release(padded));
        assertTrue(store.complete(r.token(), response(200, "real")));
    }

    @Test
    void nonAsciiScopesAndKeysRoundTripAndStayDistinct() {
        S store = store();
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
        S store = open(settings().ttl(Duration.ofHours(1)));
        Reservation first = store.reserve("t", "k", "fp");
        setTime("t", "k", KeyTime.EXPIRES, 60); // the key is near the end of its life
        assertTrue(store.release(first.token()));
        assertEquals(Outcome.REACQUIRED, store.reserve("t", "k", "fp").outcome());
        assertLivesAFullHourFromItsLastChange(store.find("t", "k").get());
    }

    @Test
    void aKeyTakenOverAfterItsLeaseExpiredUnderRetryLivesAFullTtlFromThen() {
        S store = open(settings().ttl(Duration.ofHours(1)).lease(SHORT).expiredLeasePolicy(ExpiredLeasePolicy.RETRY));
        store.reserve("t", "k", "fp");
        setTime("t", "k", KeyTime.EXPIRES, 60);
        Reservation takeover = Await.until("a takeover", AWAIT, () -> store.reserve("t", "k", "fp"), r -> r.outcome() != Outcome.IN_FLIGHT);
        assertEquals(Outcome.REACQUIRED, takeover.outcome());
        assertLivesAFullHourFromItsLastChange(store.find("t", "k").get());
    }

    @Test
    void aKeyResolvedForRetryAndAcquiredAgainLivesAFullTtlFromThen() {
        S store = open(settings().ttl(Duration.ofHours(1)).lease(SHORT));
        store.reserve("t", "k", "fp");
        Await.until("the key to become unknown", AWAIT, () -> store.reserve("t", "k", "fp").outcome(), o -> o == Outcome.OUTCOME_UNKNOWN);
        setTime("t", "k", KeyTime.EXPIRES, 60);
        assertTrue(store.resolveForRetry("t", "k"));
        assertEquals(Outcome.REACQUIRED, store.reserve("t", "k", "fp").outcome());
        assertLivesAFullHourFromItsLastChange(store.find("t", "k").get());
    }

    @Test
    void aKeyResolvedAsCompletedIsReplayedForAFullTtlFromTheDecision() {
        S store = open(settings().ttl(Duration.ofHours(1)).lease(SHORT));
        store.reserve("t", "k", "fp");
        Await.until("the key to become unknown", AWAIT, () -> store.reserve("t", "k", "fp").outcome(), o -> o == Outcome.OUTCOME_UNKNOWN);
        setTime("t", "k", KeyTime.EXPIRES, 60);
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
        S store = open(settings().ttl(StoreSettings.MAX_TTL).lease(StoreSettings.MAX_LEASE)
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
        S store = open(settings().lease(Duration.ofMinutes(5)));
        store.reserve("t", "abandoned-recently", "fp");
        store.reserve("t", "abandoned-long-ago", "fp");
        // Leases that ran out while no node swept: ten minutes ago, inside the first sweep's look-back, and two hours
        // ago, beyond it.
        setTime("t", "abandoned-recently", KeyTime.LEASE_EXPIRES, -600);
        setTime("t", "abandoned-long-ago", KeyTime.LEASE_EXPIRES, -2 * 3600);
        assertEquals(1, store.sweepExpiredLeases(), "the first sweep looks back an hour");
        assertEquals(KeyStatus.UNKNOWN, store.find("t", "abandoned-recently").get().status());
        assertEquals(KeyStatus.IN_FLIGHT, store.find("t", "abandoned-long-ago").get().status());
        // A lease that ran out a minute before this sweep but after the previous one started is inside the next look-back
        // (the previous start, less a margin); one that ran out ten minutes before is not read again.
        store.reserve("t", "abandoned-since", "fp");
        setTime("t", "abandoned-since", KeyTime.LEASE_EXPIRES, -1);
        store.reserve("t", "seen-before", "fp");
        setTime("t", "seen-before", KeyTime.LEASE_EXPIRES, -600);
        assertEquals(1, store.sweepExpiredLeases());
        assertEquals(KeyStatus.UNKNOWN, store.find("t", "abandoned-since").get().status());
        assertEquals(KeyStatus.IN_FLIGHT, store.find("t", "seen-before").get().status());
        // Nothing stays in flight for ever: once its ttl is over, the purge makes it unknown (kept for the retention).
        setTime("t", "abandoned-long-ago", KeyTime.EXPIRES, -60);
        store.purgeExpired();
        KeyRecord caught = store.find("t", "abandoned-long-ago").get();
        assertEquals(KeyStatus.UNKNOWN, caught.status());
        assertFalse(caught.leaseExpiresAt().isPresent(), caught.toString());
        assertEquals(KeyStatus.IN_FLIGHT, store.find("t", "seen-before").get().status(), "its ttl is not over");
    }

    @Test
    void underRetryThePurgeReleasesAnAbandonedKeyWhoseTtlIsOverAndThenForgetsIt() {
        S store = open(settings().lease(Duration.ofMinutes(5)).expiredLeasePolicy(ExpiredLeasePolicy.RETRY));
        store.reserve("t", "abandoned", "fp");
        setTime("t", "abandoned", KeyTime.LEASE_EXPIRES, -2 * 3600);
        setTime("t", "abandoned", KeyTime.EXPIRES, -60);
        assertEquals(0, store.sweepExpiredLeases(), "beyond the first sweep's look-back");
        store.purgeExpired();
        // Released, then purged as any expired retryable key (with time partitions: when its partition goes).
        store.find("t", "abandoned").ifPresent(k -> assertEquals(KeyStatus.RETRYABLE, k.status()));
        assertEquals(Outcome.ACQUIRED, store.reserve("t", "abandoned", "another fp").outcome(), "an expired key is new");
    }

    @Test
    void aCompletedKeyShowsNoLease() {
        S store = store();
        Reservation r = store.reserve("t", "done", "fp");
        assertTrue(store.find("t", "done").get().leaseExpiresAt().isPresent(), "a key in flight has its lease");
        assertTrue(store.complete(r.token(), response(201, "made")));
        assertFalse(store.find("t", "done").get().leaseExpiresAt().isPresent());
        assertFalse(store.list(KeyStatus.COMPLETED, 10).get(0).leaseExpiresAt().isPresent());
        assertEquals(0, store.sweepExpiredLeases(), "its lease, left as it was, runs out: still not swept");
        setTime("t", "done", KeyTime.LEASE_EXPIRES, -60);
        assertEquals(0, store.sweepExpiredLeases());
        assertEquals(KeyStatus.COMPLETED, store.find("t", "done").get().status());
    }

    // ---- unknown keys are not kept forever

    @Test
    void thePurgeDeletesKeysUnknownForLongerThanTheRetentionOnceTheirTtlRanOut() {
        S store = open(settings().lease(SHORT).ttl(Duration.ofHours(1)).unknownRetention(Duration.ofHours(2)));
        for (String key : new String[] {"old", "recent", "old-but-young-key"}) store.reserve("t", key, "fp");
        Await.until("three keys unknown", AWAIT, () -> {
            store.sweepExpiredLeases();
            return store.list(KeyStatus.UNKNOWN, 10).size();
        }, n -> n == 3);
        // "old" became unknown three hours ago and its ttl ran out; "recent" one hour ago; the third three hours ago,
        // but its ttl has not run out.
        for (String key : new String[] {"old", "recent", "old-but-young-key"}) setTime("t", key, KeyTime.EXPIRES, -60);
        setTime("t", "old", KeyTime.UPDATED, -3 * 3600);
        setTime("t", "recent", KeyTime.UPDATED, -3600);
        setTime("t", "old-but-young-key", KeyTime.UPDATED, -3 * 3600);
        setTime("t", "old-but-young-key", KeyTime.EXPIRES, 60);

        assertEquals(1, store.purgeExpired());
        assertFalse(store.find("t", "old").isPresent());
        assertTrue(store.find("t", "recent").isPresent());
        assertTrue(store.find("t", "old-but-young-key").isPresent());
        assertEquals(0, store.purgeExpired());
    }

    // ---- a reservation whose answer was lost

    @Test
    void releasingATokenThatNeverGotInIsAHarmlessNoOp() {
        S store = store();
        assertFalse(store.release(new OwnershipToken("t", "never", "00000000-0000-0000-0000-000000000000")));
        assertFalse(store.find("t", "never").isPresent());
        Reservation owner = store.reserve("t", "k", "fp");
        assertFalse(store.release(new OwnershipToken("t", "k", "00000000-0000-0000-0000-000000000000")));
        assertEquals(Outcome.IN_FLIGHT, store.reserve("t", "k", "fp").outcome(), "the real owner keeps its key");
        assertTrue(store.complete(owner.token(), response(200, "x")));
    }

    // ---- installation secret

    @Test
    void theInstallationSecretIs32RandomBytesKeptInTheStore() {
        S first = store();
        byte[] secret = first.installationSecret();
        assertEquals(32, secret.length);
        assertFalse(Arrays.equals(new byte[32], secret));
        secret[0] ^= 1;
        assertFalse(Arrays.equals(secret, first.installationSecret()), "callers get a copy");
        secret[0] ^= 1;
        assertArrayEquals(secret, first.installationSecret());
        first.close();
        assertArrayEquals(secret, store().installationSecret(), "a restarted node reads the same secret");
    }
}
