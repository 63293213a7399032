package dev.idempotency.agent.servlet.javax;

import dev.idempotency.agent.bootstrap.bridge.AsyncEnd;
import dev.idempotency.agent.bootstrap.bridge.ResponseCapture;

import javax.servlet.AsyncContext;
import javax.servlet.AsyncListener;
import javax.servlet.ServletContext;
import javax.servlet.ServletException;
import javax.servlet.ServletRequest;
import javax.servlet.ServletResponse;

/** Lets the agent record and send the captured response when the application completes its asynchronous cycle. */
final class CapturingAsyncContext implements AsyncContext {
    private final AsyncContext delegate;
    private final ResponseCapture capture;

    /**
     * Listens for the cycle's end from its start, before any listener the application adds: on a timeout the agent
     * knows first that the container gave up, whatever the application's listeners then write or complete.
     */
    CapturingAsyncContext(AsyncContext delegate, ResponseCapture capture, AsyncEnd end) {
        this.delegate = delegate;
        this.capture = capture;
        delegate.addListener(new AsyncEndListener(end));
    }

    @Override
    public void complete() {
        capture.beforeAsyncComplete();
        delegate.complete();
    }

    @Override public ServletRequest getRequest() { return delegate.getRequest(); }
    @Override public ServletResponse getResponse() { return delegate.getResponse(); }
    @Override public boolean hasOriginalRequestAndResponse() { return delegate.hasOriginalRequestAndResponse(); }
    @Override public void dispatch() { delegate.dispatch(); }
    @Override public void dispatch(String path) { delegate.dispatch(path); }
    @Override public void dispatch(ServletContext context, String path) { delegate.dispatch(context, path); }
    @Override public void start(Runnable run) { delegate.start(run); }
    @Override public void addListener(AsyncListener listener) { delegate.addListener(listener); }

    @Override
    public void addListener(AsyncListener listener, ServletRequest request, ServletResponse response) {
        delegate.addListener(listener, request, response);
    }

    @Override
    public <T extends AsyncListener> T createListener(Class<T> type) throws ServletException {
        return delegate.createListener(type);
    }

    @Override public void setTimeout(long timeout) { delegate.setTimeout(timeout); }
    @Override public long getTimeout() { return delegate.getTimeout(); }
}
