package dev.idempotency.agent.bootstrap.bridge;

/** Implemented by the agent core; requests and responses are typed {@code Object} so both servlet namespaces fit. */
public interface ServletHandler {

    /**
     * Called on entry to every instrumented {@code service} method. Returns null to leave the request alone, or the
     * exchange the agent now manages.
     */
    ServletExchange enter(Object servlet, Object request, Object response);

    /**
     * Called when a {@code service} method returns or throws. {@code exchange} is what {@link #enter} returned for this
     * call (null for calls it left alone, such as an asynchronous dispatch that may need to finish an exchange).
     */
    void exit(ServletExchange exchange, Object request, Throwable thrown);
}
