package dev.idempotency.agent.core.lifecycle;

import dev.idempotency.agent.core.threads.AgentThreads;
import dev.idempotency.agent.core.log.AgentLog;
import dev.idempotency.store.IdempotencyStore;
import dev.idempotency.store.OwnershipToken;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Queue;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;

/**
 * One thread renews the leases of every key a request of this JVM is running, in one statement per tick (a third of
 * the lease), so a running request keeps its key however long it takes and a crashed JVM loses its keys within a
 * lease. The store renews on connections of its own, so the heartbeat never waits behind requests for the pool. The
 * same thread gives up reservations whose answer was lost, once the store answers again.
 */
public final class LeaseHeartbeat {
    private static final long FAILURE_LOG_PERIOD_MILLIS = 30_000;

    private final IdempotencyStore store;
    /** Each running key with the time (System.nanoTime) after which it is no longer renewed. */
    private final Map<OwnershipToken, Long> running = new ConcurrentHashMap<>();
    private final Queue<OwnershipToken> pendingReleases = new ConcurrentLinkedQueue<>();
    private int failedTicks;
    private long lastFailureLog;

    private final Runnable onFailure;

    LeaseHeartbeat(IdempotencyStore store, Duration lease) {
        this(store, lease, () -> { });
    }

    LeaseHeartbeat(IdempotencyStore store, Duration lease, Runnable onFailure) {
        this.store = store;
        this.onFailure = onFailure;
        long period = Math.max(100, lease.toMillis() / 3);
        ScheduledExecutorService timer = AgentThreads.single("heartbeat");
        timer.scheduleWithFixedDelay(this::tick, period, period, TimeUnit.MILLISECONDS);
    }

    /** Renews the key's lease for as long as its request runs. */
    public void register(OwnershipToken token) {
        running.put(token, Long.MAX_VALUE);
    }

    /** Renews the key's lease until the deadline only (System.nanoTime): for work whose end may never be heard of. */
    public void registerUntil(OwnershipToken token, long deadlineNanos) {
        running.put(token, deadlineNanos);
    }

    public void unregister(OwnershipToken token) {
        running.remove(token);
    }

    /** Responses being recorded (or keys released) right now, after their requests stopped renewing. */
    private final java.util.concurrent.atomic.AtomicInteger recording = new java.util.concurrent.atomic.AtomicInteger();

    public void recordingStarted() {
        recording.incrementAndGet();
    }

    public void recordingEnded() {
        recording.decrementAndGet();
    }

    /** Whether requests still run or their outcome is being written: the store must stay open for them. */
    public boolean hasUnfinishedRequests() {
        return hasRunningRequests() || recording.get() > 0;
    }

    /** How many keys requests of this JVM hold now (including abandoned work in its grace). */
    public int runningCount() {
        return running.size();
    }

    /** True while a request of this JVM runs with a key (not counting work the container already gave up on). */
    public boolean hasRunningRequests() {
        return running.containsValue(Long.MAX_VALUE);
    }

    /** A reservation that may have been made though its answer was lost: released as soon as the store answers. */
    public void releaseWhenReachable(OwnershipToken token) {
        if (token != null) pendingReleases.add(token);
    }

    /** Never lets anything escape: an exception would cancel the schedule, and every running lease would expire. */
    private void tick() {
        try {
            renewRunning();
        } catch (Throwable t) {
            failed(t);
        }
        try {
            // Even when some renewals failed: a store partly away (a Cluster's master) still takes the others.
            releasePending();
        } catch (Throwable t) {
            failed(t);
        }
    }

    private void renewRunning() {
        if (running.isEmpty()) return;
        long now = System.nanoTime();
        List<OwnershipToken> snapshot = new ArrayList<>();
        for (Map.Entry<OwnershipToken, Long> e : running.entrySet()) {
            if (e.getValue() - now > 0) {
                snapshot.add(e.getKey());
            } else if (running.remove(e.getKey()) != null) {
                AgentLog.warn(e.getKey() + ": its work was not heard of again within the grace; its lease is no longer renewed");
            }
        }
        if (snapshot.isEmpty()) return;
        int renewed = store.renew(snapshot);
        if (failedTicks > 0) AgentLog.info("lease heartbeat works again after " + failedTicks + " failed period(s)");
        failedTicks = 0;
        if (renewed < snapshot.size()) AgentLog.debug("heartbeat renewed " + renewed + " of " + snapshot.size() + " leases");
    }

    private void releasePending() {
        for (OwnershipToken token; (token = pendingReleases.peek()) != null; ) {
            boolean released = store.release(token);
            pendingReleases.remove(token);
            AgentLog.info(token + ": a reservation whose answer was lost " + (released ? "was released; a retry runs" : "had not been made"));
        }
    }

    private void failed(Throwable t) {
        failedTicks++;
        onFailure.run();
        long now = System.currentTimeMillis();
        if (now - lastFailureLog >= FAILURE_LOG_PERIOD_MILLIS) {
            lastFailureLog = now;
            AgentLog.warn("lease heartbeat failed (" + failedTicks + " period(s) in a row); leases of " + running.size()
                    + " running request(s) may expire", t);
        }
    }
}
