package dev.idempotency.agent.core.servlet;

import dev.idempotency.agent.bootstrap.bridge.ServletExchange;

/**
 * The outermost servlet entry of a request without a key, per thread, so that it is counted once: an HttpServlet
 * enters twice (its public and its protected {@code service}), and a nested entry of the same request on the same
 * thread is not counted again. Ends with that entry's exit; between requests it holds nothing of the application (one
 * object per thread, reused, so counting allocates nothing).
 */
final class UnkeyedEntry implements ServletExchange {
    private static final ThreadLocal<UnkeyedEntry> CURRENT = new ThreadLocal<UnkeyedEntry>() {
        @Override
        protected UnkeyedEntry initialValue() {
            return new UnkeyedEntry();
        }
    };

    private boolean active;
    private int requestIdentity;
    /** The exchange whose exit ends this entry: this one, or the one the handler made for the request. */
    private ServletExchange owner;
    private Object request;
    private Object response;

    /** This thread's entry for {@code request}; null when an entry for it is already active (a nested one). */
    static UnkeyedEntry begin(Object request) {
        UnkeyedEntry entry = CURRENT.get();
        int identity = System.identityHashCode(request);
        if (entry.active && entry.requestIdentity == identity) return null;
        entry.active = true;
        entry.requestIdentity = identity;
        return entry;
    }

    /** What the advice gets: the handler's own exchange, or this entry, whose exit ends it. */
    ServletExchange around(ServletExchange exchange, Object currentRequest, Object currentResponse) {
        if (exchange != null) {
            owner = exchange;
            return exchange;
        }
        owner = this;
        request = currentRequest;
        response = currentResponse;
        return this;
    }

    /** The exit of {@code exchange}: ends this thread's entry if it was the one that began it. */
    static void end(ServletExchange exchange) {
        if (exchange == null) return;
        // A request without a key ends with its own entry: no second thread-local lookup (a profile's largest item).
        UnkeyedEntry entry = exchange instanceof UnkeyedEntry ? (UnkeyedEntry) exchange : CURRENT.get();
        if (!entry.active || entry.owner != exchange) return;
        entry.active = false;
        entry.owner = null;
        entry.request = null;
        entry.response = null;
    }

    @Override public boolean answered() { return false; }

    @Override public Object request() { return request; }

    @Override public Object response() { return response; }
}
