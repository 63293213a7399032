package dev.idempotency.agent.servlet.javax;

import dev.idempotency.agent.bootstrap.bridge.AsyncEnd;

import java.util.concurrent.TimeoutException;
import javax.servlet.AsyncEvent;
import javax.servlet.AsyncListener;

/** Tells the agent how an asynchronous cycle ended. */
final class AsyncEndListener implements AsyncListener {
    private final AsyncEnd end;

    AsyncEndListener(AsyncEnd end) {
        this.end = end;
    }

    @Override public void onComplete(AsyncEvent event) { end.completed(); }

    @Override public void onTimeout(AsyncEvent event) { end.failed(new TimeoutException("asynchronous request timed out")); }

    @Override
    public void onError(AsyncEvent event) {
        end.failed(event.getThrowable() != null ? event.getThrowable() : new IllegalStateException("asynchronous request failed"));
    }

    @Override
    public void onStartAsync(AsyncEvent event) {
        event.getAsyncContext().addListener(this);
    }
}
