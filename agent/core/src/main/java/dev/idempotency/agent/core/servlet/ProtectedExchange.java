package dev.idempotency.agent.core.servlet;

import dev.idempotency.agent.bootstrap.bridge.AsyncEnd;
import dev.idempotency.agent.bootstrap.bridge.ResponseCapture;
import dev.idempotency.agent.bootstrap.bridge.ServletAccessor;
import dev.idempotency.agent.bootstrap.bridge.ServletExchange;
import dev.idempotency.agent.core.effects.DerivedKeys;
import dev.idempotency.agent.core.effects.RequestEffects;
import dev.idempotency.agent.core.gate.Admission;
import dev.idempotency.agent.core.gate.Answer;
import dev.idempotency.agent.core.gate.BoundedResponseBody;
import dev.idempotency.agent.core.gate.ContainerRendered;
import dev.idempotency.agent.core.gate.ExchangeAttributes;
import dev.idempotency.agent.core.gate.IdempotencyGate;
import dev.idempotency.agent.core.gate.MemoryBudget;
import dev.idempotency.agent.core.gate.RequestCapture;
import dev.idempotency.agent.core.gate.PendingDecision;
import dev.idempotency.agent.core.log.AgentLog;
import dev.idempotency.agent.core.protocol.Problem;
import dev.idempotency.store.StoreException;

import java.io.IOException;
import java.io.OutputStream;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * A request that owns its key and runs the application. The response is captured and, when the application is done,
 * recorded in the store before it is sent, so a client that saw it can always get it again. Server errors, "try again
 * later" statuses and exceptions release the key instead (unless configured to keep 5xx). When the container gives up
 * on an asynchronous request whose work may still run, the key stays owned and a late result is still recorded.
 */
final class ProtectedExchange implements ServletExchange, ResponseCapture, AsyncEnd, BoundedResponseBody.StreamingStart,
        PendingDecision.Deferred {
    private final ServletAccessor http;
    /** Null while the decision is left to the JAX-RS layer, and for good when it never came or ran unprotected. */
    private volatile Admission admission;
    private final AtomicBoolean finished = new AtomicBoolean();
    private volatile PendingDecision awaited;
    private static final OutputStream DISCARD = new OutputStream() {
        @Override public void write(int b) { }
        @Override public void write(byte[] b, int off, int len) { }
    };
    private final java.util.Set<Integer> retryStatuses;
    private final String header;
    private final String description;
    private final Object originalResponse;
    private final Object request;
    private final Object response;
    private final BoundedResponseBody body;
    private final long maxResponseBytes;
    private final MemoryBudget memory;
    private int errorStatus;
    private String errorMessage;
    /** The application's sendRedirect, as it named the location; the container makes the Location from it. */
    private String redirectLocation;
    private boolean redirectClearsBuffer;
    /** The container ended the request; the application's work may still complete it. */
    private volatile boolean abandoned;
    private final RequestCapture capture;

    /**
     * @param admission null when the JAX-RS layer behind the servlet decides (see {@link #admitted})
     * @param capture   the request as the agent took it, whose body's memory is released when this exchange ends
     */
    ProtectedExchange(ServletAccessor http, Admission admission, RequestCapture capture, String header, long maxResponseBytes,
                      java.util.Set<Integer> retryStatuses, MemoryBudget memory, Object request, Object originalResponse) {
        this.capture = capture;
        String description = admission != null ? admission.description() : capture.description();
        this.http = http;
        this.retryStatuses = retryStatuses;
        this.admission = admission;
        this.header = header;
        this.description = description;
        this.originalResponse = originalResponse;
        this.body = new BoundedResponseBody(maxResponseBytes, this, memory);
        this.maxResponseBytes = maxResponseBytes;
        this.memory = memory;
        this.response = http.capturingResponse(request, originalResponse, this);
        this.request = http.protectedRequest(request, response, this, this);
    }

    /** The JAX-RS layer decided that the application runs: under this admission, or unprotected when null. */
    @Override
    public void admitted(Admission decided) {
        admission = decided;
    }

    @Override public boolean answered() { return false; }
    @Override public Object request() { return request; }
    @Override public Object response() { return response; }

    /** The servlet returned or threw: finish now, or when its asynchronous cycle ends. */
    void serviceExited(Object currentRequest, Throwable thrown) {
        RequestEffects.unwatchCurrentThread(); // this thread may serve other requests next
        DerivedKeys.unbindCurrentThread();
        if (abandoned) { // only the application's own late complete() may end an abandoned request
            relayContainersTimeoutAnswer();
            return;
        }
        if (thrown == null && http.isAsyncStarted(currentRequest)) {
            Admission running = admission;
            if (running != null) running.continuesOffThread(); // a cycle started on the container's own request too
            http.setAttribute(currentRequest, IdempotentServletHandler.PENDING_ATTRIBUTE, this);
            http.onAsyncEnd(currentRequest, this);
            return;
        }
        finish(thrown, false);
    }

    // ---- capture callbacks from the application's writes

    @Override
    public void write(int b) throws IOException {
        if (abandoned && body.isStreaming()) return; // the client is gone and nothing of it is kept
        body.write(b);
    }

    @Override
    public void write(byte[] bytes, int offset, int length) throws IOException {
        if (abandoned && body.isStreaming()) return;
        body.write(bytes, offset, length);
    }

    /**
     * A flush of a buffered response is held: the response leaves once it is recorded. Frameworks flush at the end of
     * every body (Spring does), so committing here would leave nothing to replay. A streaming response flushes through.
     */
    @Override
    public void flushBuffer() throws IOException {
        if (!abandoned) body.flushStream();
    }

    @Override public void resetBuffer() { body.reset(); }

    @Override
    public void sendError(int status, String message) {
        errorStatus = status;
        errorMessage = message;
        redirectLocation = null;
        body.reset();
    }

    @Override
    public void sendRedirect(String location, int status, boolean clearBuffer) {
        http.setStatus(response, status);
        errorStatus = 0;
        redirectLocation = location;
        redirectClearsBuffer = clearBuffer;
        if (clearBuffer) body.reset();
    }

    /** The application's sendError or sendRedirect, for the container to make; null when it made neither. */
    private String[] containerCall() {
        if (errorStatus > 0) return ContainerRendered.error(errorMessage);
        if (redirectLocation != null) return ContainerRendered.redirect(redirectLocation, redirectClearsBuffer);
        return null;
    }

    @Override public void beforeAsyncComplete() { finish(null, true); }

    /**
     * The work goes to threads the agent does not watch: under recovery=transaction that is noted before it can start
     * there, and a cycle whose note cannot be written does not start.
     */
    @Override
    public void starting() {
        Admission running = admission;
        if (running != null && !running.continuesOffThread()) {
            throw new IllegalStateException("idempotency agent: cannot note that this keyed request continues on other threads"
                    + " (the idempotency store did not take it), so its asynchronous processing is refused");
        }
    }

    @Override
    public void completed() {
        Admission a = admission;
        if (a == null) {
            finish(null, false);
        } else if (!a.isEnded() && !abandoned) {
            AgentLog.warn(description + ": asynchronous cycle ended without complete(); the key is released");
            finish(new IllegalStateException("asynchronous cycle ended unrecorded"), false);
        }
    }

    /**
     * The container timed the asynchronous cycle out or hit an error on it. The application's work may still be
     * running (it owns the AsyncContext), so releasing the key would let a retry run it a second time: the key stays
     * owned, and the response is detached from the container's so that a late result can still be recorded.
     */
    @Override
    public void failed(Throwable cause) {
        Admission a = admission;
        if (a == null) {
            finish(cause, false);
            return;
        }
        synchronized (this) {
            if (a.isEnded() || abandoned) return;
            abandoned = true;
            http.detach(response, http.status(originalResponse), http.responseHeaders(originalResponse));
            a.abandonedByContainer();
        }
    }

    /** The response outgrew the buffer or was flushed: record that it is not kept, then let it stream. */
    @Override
    public OutputStream beginStreaming(String reason) throws IOException {
        Admission a = admission;
        if (a == null) return http.outputStream(originalResponse); // nothing owned, nothing to record
        if (abandoned) {
            // the container's response may already serve another request: recorded as not kept, the bytes go nowhere
            try {
                a.recordNotKept(http.status(response), reason);
            } catch (StoreException e) {
                AgentLog.warn(description + ": could not mark the late response as not kept", e);
            }
            return DISCARD;
        }
        try {
            a.recordNotKept(http.status(response), reason);
        } catch (StoreException e) {
            throw new IOException("idempotency store unavailable; the response cannot be sent safely", e);
        }
        return http.outputStream(originalResponse);
    }

    // ---- the end

    /** @param lateCompletion the application itself completed its asynchronous cycle */
    private synchronized void finish(Throwable thrown, boolean lateCompletion) {
        Admission admission = this.admission;
        if (admission != null && thrown == null && !abandoned && suspendedResourceFailed()) {
            failed(new IllegalStateException("a suspended JAX-RS resource ended with a server error"));
            return;
        }
        if (abandoned && !(lateCompletion && thrown == null && lateResultWorthRecording())) return; // the grace and the lease policy decide
        if (!finished.compareAndSet(false, true)) return;
        try {
            conclude(admission, thrown);
        } finally {
            body.releaseMemory();
            capture.releaseMemory();
        }
    }

    private void conclude(Admission admission, Throwable thrown) {
        if (admission == null) {
            passThrough(thrown);
            return;
        }
        if (!admission.end()) return;
        if (!abandoned) { // an abandoned request's container objects may already serve another request
            Object route = http.attribute(request, ExchangeAttributes.ROUTE);
            if (route != null) AgentLog.debug(description + ": served by JAX-RS route " + route);
        }
        try {
            http.flushWriter(response);
        } catch (IOException | RuntimeException e) {
            AgentLog.debug(description + ": flushing the writer failed: " + e);
        }
        if (body.isStreaming()) return; // recorded as not kept when streaming began; the container ends the stream
        if (thrown != null) {
            admission.release("the application threw " + thrown.getClass().getName());
            return; // the container renders the exception as usual
        }
        int status = statusSoFar();
        byte[] bytes = errorStatus > 0 ? new byte[0] : body.bytes();
        List<String[]> headers = new ArrayList<>(http.responseHeaders(response));
        String[] call = containerCall();
        if (call != null) headers.add(call);
        switch (admission.conclude(status, headers, bytes)) {
            case RECORDED:
                if (abandoned) return;
                if (call != null && ContainerRendered.isError(call)) {
                    // an error page the container dispatches to is captured and recorded in the call's place
                    http.setAttribute(request, ErrorPageExchange.ATTRIBUTE, new ErrorPageExchange(http, admission, maxResponseBytes, memory));
                }
                deliver(status, call, bytes);
                return;
            case RELEASED:
                if (!abandoned) sendUnkept(status);
                return;
            case TAKEN_OVER:
                if (!abandoned) sendProblem(IdempotencyGate.outcomeUnknownAnswer(header));
                return;
            default:
                if (!abandoned) sendProblem(Answer.problem(Problem.STORE_UNAVAILABLE,
                        "The request was processed but its response could not be recorded; do not assume it failed.", null));
        }
    }

    /**
     * After the container gave up, only a result is recorded; a server error or a "try later" answer (a listener's
     * 503 on timeout, say) says nothing of the work, which may still run, so the key stays owned.
     */
    private boolean lateResultWorthRecording() {
        int status = statusSoFar();
        return status < 500 && !retryStatuses.contains(status);
    }

    /**
     * A dispatch that ends after the container timed the cycle out is the container (or its runtime: CXF answers its
     * timeout in a dispatch of its own) still serving this request on its live response. Its server error or "try
     * later" says nothing of the work, whose key stays owned, so that status (and its Retry-After) reaches the client,
     * without a body; a result would be the application's late one, which is recorded, not sent.
     */
    private void relayContainersTimeoutAnswer() {
        if (lateResultWorthRecording()) return;
        http.setStatus(originalResponse, statusSoFar());
        for (String[] header : http.responseHeaders(response)) {
            if ("Retry-After".equalsIgnoreCase(header[0])) http.setHeader(originalResponse, header[0], header[1]);
        }
    }

    /** Set while the decision is left to the JAX-RS layer: what it decided, or that it never did. */
    void awaiting(PendingDecision pending) {
        this.awaited = pending;
    }

    /** No key was owned (the JAX-RS layer answered, or its authentication refused): the response goes out as it is. */
    private void passThrough(Throwable thrown) {
        PendingDecision pending = awaited;
        int status = statusSoFar();
        if (pending != null && !pending.decided() && thrown == null && status < 400) {
            // the runtime ran something without the agent's filter: say so rather than stay silent
            AgentLog.warn(description + ": the JAX-RS runtime answered " + status + " without the agent's filter deciding; this"
                    + " request was NOT protected (is the filter registered in every JAX-RS application of this web application?)");
        }
        try {
            http.flushWriter(response);
        } catch (IOException | RuntimeException e) {
            AgentLog.debug(description + ": flushing the writer failed: " + e);
        }
        if (body.isStreaming() || thrown != null) return;
        sendUnkept(statusSoFar());
    }

    /**
     * A suspended JAX-RS resource whose response is a server error was most likely ended by its runtime's timeout
     * while its work still runs (the runtime answers 503 and drops the late result): treated as abandoned.
     */
    private boolean suspendedResourceFailed() {
        if (http.attribute(request, ExchangeAttributes.ASYNC_RESOURCE) == null) return false;
        return statusSoFar() >= 500;
    }

    /** The application's response, whose status and headers are on the container's already: its body, or the call. */
    private void deliver(int status, String[] call, byte[] bytes) {
        try {
            if (call != null) {
                AnswerSender.render(http, originalResponse, status, call, bytes);
                return;
            }
            AnswerSender.writeBody(http, originalResponse, bytes);
        } catch (IOException | RuntimeException e) {
            AgentLog.debug(description + ": could not send the " + status + " response (" + e + "); if it was recorded, a retry gets it");
        }
    }

    private void sendProblem(Answer answer) {
        try {
            http.send(originalResponse, answer.status(), answer.headers(), answer.body(), false); // nothing of the application's
        } catch (IOException | RuntimeException e) {
            AgentLog.debug(description + ": could not send the problem: " + e);
        }
    }

    /** A response that is not kept goes to the client as the application produced it. */
    /** The status the response has now: the application's sendError, else the one it set. */
    private int statusSoFar() {
        return errorStatus > 0 ? errorStatus : http.status(response);
    }

    private void sendUnkept(int status) {
        deliver(status, containerCall(), errorStatus > 0 ? new byte[0] : body.bytes());
    }
}
