package dev.idempotency.agent.core.servlet;

import dev.idempotency.agent.bootstrap.bridge.ServletExchange;
import dev.idempotency.agent.core.gate.PendingDecision;

/** The exchanges that carry no protocol state of their own. */
final class SimpleExchanges {
    private SimpleExchanges() {
    }

    /** The agent wrote the response (replay or problem); the application does not run. */
    static final ServletExchange ANSWERED = new ServletExchange() {
        @Override public boolean answered() { return true; }
        @Override public Object request() { throw new IllegalStateException("answered"); }
        @Override public Object response() { throw new IllegalStateException("answered"); }
    };

    /** The outermost entry of a keyed request: what follows reads the captured body; the decision comes later. */
    static final class Entry implements ServletExchange {
        final PendingDecision pending;
        private final Object request;
        private final Object response;

        private final dev.idempotency.agent.bootstrap.bridge.ServletAccessor http;

        Entry(dev.idempotency.agent.bootstrap.bridge.ServletAccessor http, PendingDecision pending, Object request, Object response) {
            this.http = http;
            this.pending = pending;
            this.request = request;
            this.response = response;
        }

        int status() { return http.status(response); }

        /** Whether the request went asynchronous in the filters after this entry: it is not over yet. */
        boolean asyncStarted(Object currentRequest) { return http.isAsyncStarted(currentRequest); }

        @Override public boolean answered() { return false; }
        @Override public Object request() { return request; }
        @Override public Object response() { return response; }
    }

    /** The application runs unprotected (failure mode open) but must still get the body the agent already read. */
    static ServletExchange passThrough(Object request, Object response) {
        return new ServletExchange() {
            @Override public boolean answered() { return false; }
            @Override public Object request() { return request; }
            @Override public Object response() { return response; }
        };
    }

    /** An asynchronous dispatch of a protected request: when it returns without restarting async, the exchange ends. */
    static final class AsyncRedispatch implements ServletExchange {
        final ProtectedExchange exchange;
        private final Object request;
        private final Object response;

        AsyncRedispatch(ProtectedExchange exchange, Object request, Object response) {
            this.exchange = exchange;
            this.request = request;
            this.response = response;
        }

        @Override public boolean answered() { return false; }
        @Override public Object request() { return request; }
        @Override public Object response() { return response; }
    }
}
