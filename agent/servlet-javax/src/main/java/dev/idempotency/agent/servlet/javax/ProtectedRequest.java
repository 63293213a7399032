package dev.idempotency.agent.servlet.javax;

import dev.idempotency.agent.bootstrap.bridge.AsyncEnd;
import dev.idempotency.agent.bootstrap.bridge.ResponseCapture;

import javax.servlet.AsyncContext;
import javax.servlet.ServletRequest;
import javax.servlet.ServletResponse;
import javax.servlet.http.HttpServletRequest;
import javax.servlet.http.HttpServletRequestWrapper;
import javax.servlet.http.HttpServletResponse;

/**
 * The request the application runs with once the agent owns its key: asynchronous cycles started on it carry the
 * capturing response and tell the agent before the container ends them.
 */
final class ProtectedRequest extends HttpServletRequestWrapper {
    private final HttpServletResponse capturingResponse;
    private final ResponseCapture capture;
    private final AsyncEnd end;
    private AsyncContext asyncContext;

    ProtectedRequest(HttpServletRequest request, HttpServletResponse capturingResponse, ResponseCapture capture, AsyncEnd end) {
        super(request);
        this.capturingResponse = capturingResponse;
        this.capture = capture;
        this.end = end;
    }

    @Override
    public AsyncContext startAsync() {
        return startAsync(this, capturingResponse);
    }

    @Override
    public AsyncContext startAsync(ServletRequest request, ServletResponse response) {
        end.starting();
        asyncContext = new CapturingAsyncContext(super.startAsync(request, response), capture, end);
        return asyncContext;
    }

    @Override
    public AsyncContext getAsyncContext() {
        return asyncContext != null ? asyncContext : super.getAsyncContext();
    }
}
