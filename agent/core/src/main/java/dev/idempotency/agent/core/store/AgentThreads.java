package dev.idempotency.agent.core.store;

import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;

/** The agent's own daemon threads: named, and never holding on to an application's class loader. */
public final class AgentThreads {
    private AgentThreads() {
    }

    public static ScheduledExecutorService single(String name) {
        return Executors.newSingleThreadScheduledExecutor(task -> {
            Thread thread = new Thread(task, "idempotency-agent-" + name);
            thread.setDaemon(true);
            thread.setContextClassLoader(AgentThreads.class.getClassLoader());
            return thread;
        });
    }
}
