package dev.idempotency.agent.bootstrap.bridge;

/** Implemented by the agent core; requests and responses are typed {@code Object} so both servlet namespaces fit. */
public interface ServletHandler {

    /**
     * Called on entry to every instrumented {@code service} (servlet) or {@code doFilter} (filter) method. Returns null
     * to leave the call alone, or the exchange the agent now manages. A keyed request must never reach the application
     * unprotected because of a fault here: the handler answers it itself.
     */
    ServletExchange enter(Object component, boolean servlet, Object request, Object response);

    /**
     * Called when a {@code service} or {@code doFilter} method returns or throws. {@code exchange} is what {@link #enter} returned for this
     * call (null for calls it left alone, such as an asynchronous dispatch that may need to finish an exchange).
     */
    void exit(ServletExchange exchange, Object request, Throwable thrown);
}
