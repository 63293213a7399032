package dev.idempotency.agent.core.store;

import dev.idempotency.agent.core.log.AgentLog;
import dev.idempotency.store.IdempotencyStore;
import dev.idempotency.store.OwnershipToken;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;

/**
 * One thread renews the leases of every key a request of this JVM is running, in one statement per tick (a third of
 * the lease), so a slow request keeps its key however long it takes and a crashed JVM loses its keys within a lease.
 */
public final class LeaseHeartbeat {
    private final IdempotencyStore store;
    /** Each running key with the time (System.nanoTime) after which it is no longer renewed. */
    private final Map<OwnershipToken, Long> running = new ConcurrentHashMap<>();
    private volatile boolean failing;

    LeaseHeartbeat(IdempotencyStore store, Duration lease) {
        this.store = store;
        long period = Math.max(100, lease.toMillis() / 3);
        ScheduledExecutorService timer = AgentThreads.single("heartbeat");
        timer.scheduleWithFixedDelay(this::tick, period, period, TimeUnit.MILLISECONDS);
    }

    /** Renews the key's lease for as long as its request runs. */
    public void register(OwnershipToken token) {
        running.put(token, Long.MAX_VALUE);
    }

    /**
     * Renews the key's lease until the deadline only: for transports that may never say that a request ended (a JAX-RS
     * resource throwing an exception no mapper handles), so a lost request cannot hold its key for ever.
     */
    public void registerUntil(OwnershipToken token, long deadlineNanos) {
        running.put(token, deadlineNanos);
    }

    public void unregister(OwnershipToken token) {
        running.remove(token);
    }

    private void tick() {
        if (running.isEmpty()) return;
        long now = System.nanoTime();
        List<OwnershipToken> snapshot = new ArrayList<>();
        for (Map.Entry<OwnershipToken, Long> e : running.entrySet()) {
            if (e.getValue() - now > 0) {
                snapshot.add(e.getKey());
            } else if (running.remove(e.getKey()) != null) {
                AgentLog.warn(e.getKey() + " was not heard of again; its lease is no longer renewed");
            }
        }
        if (snapshot.isEmpty()) return;
        try {
            int renewed = store.renew(snapshot);
            if (failing) AgentLog.info("lease heartbeat works again");
            failing = false;
            if (renewed < snapshot.size()) AgentLog.debug("heartbeat renewed " + renewed + " of " + snapshot.size() + " leases");
        } catch (RuntimeException e) {
            if (!failing) AgentLog.warn("lease heartbeat failed; leases of running requests may expire", e);
            failing = true;
        }
    }
}
