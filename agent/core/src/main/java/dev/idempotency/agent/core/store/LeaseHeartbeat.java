package dev.idempotency.agent.core.store;

import dev.idempotency.agent.core.log.AgentLog;
import dev.idempotency.store.IdempotencyStore;
import dev.idempotency.store.OwnershipToken;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;

/**
 * One thread renews the leases of every key a request of this JVM is running, in one statement per tick (a third of
 * the lease), so a slow request keeps its key however long it takes and a crashed JVM loses its keys within a lease.
 */
public final class LeaseHeartbeat {
    private final IdempotencyStore store;
    private final Set<OwnershipToken> running = ConcurrentHashMap.newKeySet();
    private volatile boolean failing;

    LeaseHeartbeat(IdempotencyStore store, Duration lease) {
        this.store = store;
        long period = Math.max(100, lease.toMillis() / 3);
        ScheduledExecutorService timer = AgentThreads.single("heartbeat");
        timer.scheduleWithFixedDelay(this::tick, period, period, TimeUnit.MILLISECONDS);
    }

    public void register(OwnershipToken token) {
        running.add(token);
    }

    public void unregister(OwnershipToken token) {
        running.remove(token);
    }

    private void tick() {
        if (running.isEmpty()) return;
        List<OwnershipToken> snapshot = new ArrayList<>(running);
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
