package dev.idempotency.agent.core.lifecycle;

import dev.idempotency.store.IdempotencyStore;
import dev.idempotency.store.KeyRecord;
import dev.idempotency.store.KeyStatus;
import dev.idempotency.store.OwnershipToken;
import dev.idempotency.store.Reservation;
import dev.idempotency.store.StoreUnavailableException;
import dev.idempotency.store.StoredResponse;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.Collection;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The heartbeat thread against a store that fails the way a real one can (the claim is about the thread, so the
 * store is a scripted stand-in): an Error or an exception in one tick must not end the renewals of running keys.
 */
class LeaseHeartbeatTest {
    private static final OwnershipToken RUNNING = new OwnershipToken("tenant", "running", "t-1");
    private static final OwnershipToken LOST = new OwnershipToken("tenant", "lost", "t-2");

    /** Fails its first renewals with an Error, then an exception, then renews; the first release is unreachable too. */
    private static final class FlakyStore implements IdempotencyStore {
        final AtomicInteger renewCalls = new AtomicInteger();
        final AtomicInteger renewed = new AtomicInteger();
        final AtomicInteger releaseCalls = new AtomicInteger();
        final List<OwnershipToken> released = new CopyOnWriteArrayList<>();
        /** Renewals fail every time: part of the store away for good (a Cluster's master), the rest answering. */
        volatile boolean renewalsFail;

        @Override
        public int renew(Collection<OwnershipToken> tokens) {
            int call = renewCalls.incrementAndGet();
            if (renewalsFail) throw new StoreUnavailableException("simulated: one master away", null);
            if (call == 1) throw new OutOfMemoryError("simulated: a tick that hits an Error");
            if (call == 2) throw new StoreUnavailableException("simulated outage", null);
            renewed.incrementAndGet();
            return tokens.size();
        }

        @Override
        public boolean recordEffect(OwnershipToken token, dev.idempotency.store.EffectMark.Kind kind, String detail) { return false; }

        @Override
        public boolean release(OwnershipToken token) {
            if (releaseCalls.incrementAndGet() == 1) throw new StoreUnavailableException("simulated outage", null);
            released.add(token);
            return true;
        }

        @Override public Reservation reserve(String scope, String key, String fingerprint) { throw new UnsupportedOperationException(); }
        @Override public boolean complete(OwnershipToken token, StoredResponse response) { throw new UnsupportedOperationException(); }
        @Override public boolean replaceResponse(OwnershipToken token, StoredResponse response) { throw new UnsupportedOperationException(); }
        @Override public int sweepExpiredLeases() { return 0; }
        @Override public int purgeExpired(java.util.function.IntConsumer afterEachBatch) { return 0; }
        @Override public byte[] installationSecret() { throw new UnsupportedOperationException(); }
        @Override public Optional<KeyRecord> find(String scope, String key) { throw new UnsupportedOperationException(); }
        @Override public List<KeyRecord> list(dev.idempotency.store.KeyQuery query) { throw new UnsupportedOperationException(); }
        @Override public java.util.Map<KeyStatus, Long> countByStatus() { throw new UnsupportedOperationException(); }
        @Override public void checkSchema() { throw new UnsupportedOperationException(); }
        @Override public String dialectName() { return "flaky"; }
        @Override public int connectionsInUse() { return 0; }
        @Override public java.time.Instant databaseTime() { throw new UnsupportedOperationException(); }
        @Override public boolean resolveForRetry(String scope, String key) { throw new UnsupportedOperationException(); }
        @Override public boolean resolveAsCompleted(String scope, String key, StoredResponse response) { throw new UnsupportedOperationException(); }
        @Override public boolean delete(String scope, String key) { throw new UnsupportedOperationException(); }
        @Override public void close() { }
    }

    private static void await(String what, java.util.function.BooleanSupplier done) {
        long deadline = System.nanoTime() + Duration.ofSeconds(10).toNanos();
        while (!done.getAsBoolean()) {
            if (System.nanoTime() > deadline) throw new AssertionError("timed out awaiting " + what);
            Thread.onSpinWait();
        }
    }

    @Test
    void renewalsSurviveErrorsAndLostReservationsAreReleasedOnceTheStoreAnswers() {
        FlakyStore store = new FlakyStore();
        LeaseHeartbeat heartbeat = new LeaseHeartbeat(store, Duration.ofMillis(300));
        heartbeat.register(RUNNING);
        heartbeat.releaseWhenReachable(LOST);
        await("renewals after an Error and an exception", () -> store.renewed.get() >= 2);
        await("the lost reservation to be released", () -> store.released.contains(LOST));
        assertEquals(1, store.released.size(), "released once, not again on later ticks");
        assertTrue(heartbeat.hasRunningRequests());
        heartbeat.unregister(RUNNING);
        assertFalse(heartbeat.hasRunningRequests());
    }

    @Test
    void lostReservationsAreReleasedEvenWhileRenewalsFail() {
        FlakyStore store = new FlakyStore();
        store.renewalsFail = true;
        LeaseHeartbeat heartbeat = new LeaseHeartbeat(store, Duration.ofMillis(300));
        heartbeat.register(RUNNING);
        heartbeat.releaseWhenReachable(LOST);
        await("the lost reservation to be released while renewals keep failing", () -> store.released.contains(LOST));
        assertTrue(store.renewCalls.get() >= 2, "renewals were tried, and failed");
        heartbeat.unregister(RUNNING);
    }

    @Test
    void workTheContainerGaveUpOnDoesNotHoldUpShutdown() {
        FlakyStore store = new FlakyStore();
        LeaseHeartbeat heartbeat = new LeaseHeartbeat(store, Duration.ofMillis(300));
        heartbeat.registerUntil(RUNNING, System.nanoTime() + Duration.ofMinutes(10).toNanos());
        assertFalse(heartbeat.hasRunningRequests());
        heartbeat.register(LOST);
        assertTrue(heartbeat.hasRunningRequests());
    }
}
