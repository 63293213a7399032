package dev.idempotency.agent.core.lifecycle;

import java.util.concurrent.atomic.AtomicBoolean;

/**
 * What the agent starts once the host serves its first request, never during its start-up: by then the host has set
 * up its logging and JMX (WildFly's log manager must come first), and its start-up time is untouched. Each action only
 * hands work to an agent thread. After the first request, one volatile read per request.
 */
public final class FirstRequest {
    private final AtomicBoolean seen = new AtomicBoolean();
    private final Runnable[] actions;

    public FirstRequest(Runnable... actions) {
        this.actions = actions.clone();
    }

    public void onRequest() {
        if (seen.get() || !seen.compareAndSet(false, true)) return;
        for (Runnable action : actions) {
            try {
                action.run();
            } catch (Throwable t) {
                // never the request's problem: the store then opens with the first keyed request, as it would anyway
                dev.idempotency.agent.core.log.AgentLog.warn("could not start background work at the first request: " + t);
            }
        }
    }
}
