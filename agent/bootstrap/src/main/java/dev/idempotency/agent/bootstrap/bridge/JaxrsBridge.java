package dev.idempotency.agent.bootstrap.bridge;

/**
 * What JAX-RS advice and the agent's JAX-RS filter call. Like {@link ServletBridge}, it lives on the bootstrap class
 * path and hands everything to the agent core; every call is guarded.
 */
public final class JaxrsBridge {
    private static volatile JaxrsHandler handler;

    private JaxrsBridge() {
    }

    public static void install(JaxrsHandler jaxrsHandler) {
        handler = jaxrsHandler;
    }

    /** The handler, or null while the agent is not (or no longer) active. */
    public static JaxrsHandler handler() {
        return handler;
    }

    /** Called when a Jersey {@code ResourceConfig} has been constructed: registers the agent's filter into it. */
    public static void registerAgentFilter(Object resourceConfig) {
        JaxrsHandler h = handler;
        if (h == null) return;
        try {
            h.registerAgentFilter(resourceConfig);
        } catch (Throwable ignored) {
            // the handler reports its own faults
        }
    }

    /** Called on return from every {@code Application.getClasses()}: the classes, plus the agent's filter. */
    public static Object withAgentFilter(Object application, Object classes) {
        JaxrsHandler h = handler;
        if (h == null) return classes;
        try {
            return h.withAgentFilter(application, classes);
        } catch (Throwable t) {
            return classes;
        }
    }
}
