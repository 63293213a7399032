package dev.idempotency.agent.bootstrap.bridge;

/**
 * What the servlet advice calls. It lives on the bootstrap class path so that advice inlined into any servlet class
 * can reach it; the real work happens behind {@link ServletHandler}, in the agent's isolated class loader. Every call
 * is guarded: nothing the agent does may break a request it does not handle.
 */
public final class ServletBridge {
    private static volatile ServletHandler handler;

    private ServletBridge() {
    }

    public static void install(ServletHandler servletHandler) {
        handler = servletHandler;
    }

    /** Null for every request the agent leaves alone (the common case, and the cheap one). */
    public static ServletExchange enter(Object servlet, Object request, Object response) {
        ServletHandler h = handler;
        if (h == null) return null;
        try {
            return h.enter(servlet, request, response);
        } catch (Throwable t) {
            return null;
        }
    }

    public static void exit(ServletExchange exchange, Object request, Throwable thrown) {
        ServletHandler h = handler;
        if (h == null) return;
        try {
            h.exit(exchange, request, thrown);
        } catch (Throwable ignored) {
            // the handler reports its own faults
        }
    }
}
