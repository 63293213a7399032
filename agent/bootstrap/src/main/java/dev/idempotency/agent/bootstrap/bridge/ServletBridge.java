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

    /**
     * Entry to a servlet's {@code service} or a filter's {@code doFilter} ({@code method} tells which). Null for every
     * request the agent leaves alone (the common, cheap case).
     */
    public static ServletExchange enter(Object component, String method, Object request, Object response) {
        ServletHandler h = handler;
        if (h == null) return null;
        try {
            return h.enter(component, !"doFilter".equals(method), request, response);
        } catch (Throwable t) {
            return null; // the handler answers keyed requests itself when it fails; this is for faults outside it
        }
    }

    /** Whether the agent answered itself; the application then must not run. False on any fault. */
    public static boolean answered(ServletExchange exchange) {
        try {
            return exchange.answered();
        } catch (Throwable t) {
            return false;
        }
    }

    /** The request the application must see: the agent's wrapper, or {@code original} on any fault. */
    public static Object request(ServletExchange exchange, Object original) {
        try {
            Object request = exchange.request();
            return request == null ? original : request;
        } catch (Throwable t) {
            return original;
        }
    }

    /** The response the application must write to: the agent's wrapper, or {@code original} on any fault. */
    public static Object response(ServletExchange exchange, Object original) {
        try {
            Object response = exchange.response();
            return response == null ? original : response;
        } catch (Throwable t) {
            return original;
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
