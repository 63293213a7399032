package dev.idempotency.agent.core.telemetry;

import dev.idempotency.agent.core.log.AgentLog;
import dev.idempotency.agent.core.threads.AgentThreads;

import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;

/**
 * Warns, once per entry, about entries of {@code idempotency.required} that match no endpoint: a typo that protects
 * nothing. Applications become known at their first request, so the check runs {@link #QUIET_SECONDS} after the
 * last application (or JAX-RS route list) appeared, on the agent's own thread, and again after each new one.
 */
public final class RequiredAudit {
    static final int QUIET_SECONDS = 5;

    private final EndpointInventory inventory;
    private final ScheduledExecutorService thread;
    private final Set<String> warned = ConcurrentHashMap.newKeySet();
    private ScheduledFuture<?> pending;

    private RequiredAudit(EndpointInventory inventory) {
        this.inventory = inventory;
        this.thread = AgentThreads.single("required-audit");
    }

    /** Audits {@code inventory} as applications appear; nothing when {@code required} is empty. */
    public static void watch(EndpointInventory inventory, boolean requiredEmpty) {
        if (requiredEmpty) return;
        RequiredAudit audit = new RequiredAudit(inventory);
        inventory.onNewApplication(audit::schedule);
    }

    private synchronized void schedule() {
        if (pending != null) pending.cancel(false);
        pending = thread.schedule(this::check, QUIET_SECONDS, TimeUnit.SECONDS);
    }

    void check() {
        try {
            for (String entry : inventory.unmatchedRequired()) {
                if (!warned.add(entry)) continue;
                boolean route = !entry.startsWith("/");
                AgentLog.warn("idempotency.required entry '" + entry + "' matches no endpoint of the applications"
                        + " seen so far (no servlet mapping, no JAX-RS route): it protects nothing; a typo?"
                        + (route && inventory.someRoutesUndeclared() ? " (a JAX-RS application here scans for its"
                        + " resources, whose routes are known only once requested)" : "")
                        + " (java -jar idempotency-agent.jar endpoints PID lists the endpoints)");
            }
        } catch (RuntimeException e) {
            inventory.failed();
        }
    }
}
