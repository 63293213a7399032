package dev.idempotency.agent.core.threads;

import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledThreadPoolExecutor;

/**
 * The agent's own daemon threads: named, and never holding on to an application's class loader. Each is started here,
 * by whoever creates the executor (the premain, or another agent thread), never later by the first task's submitter:
 * a thread created on a request thread would inherit that web application's inheritable thread locals and access
 * control context, and pin its class loader after undeploy.
 */
public final class AgentThreads {
    private AgentThreads() {
    }

    public static ScheduledExecutorService single(String name) {
        ScheduledThreadPoolExecutor executor = new ScheduledThreadPoolExecutor(1, task -> {
            Thread thread = new Thread(task, "idempotency-agent-" + name);
            thread.setDaemon(true);
            thread.setContextClassLoader(AgentThreads.class.getClassLoader());
            return thread;
        });
        executor.prestartCoreThread();
        return executor;
    }
}
