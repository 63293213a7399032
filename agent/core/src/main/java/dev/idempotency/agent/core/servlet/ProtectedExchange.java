package dev.idempotency.agent.core.servlet;

import dev.idempotency.agent.bootstrap.bridge.AsyncEnd;
import dev.idempotency.agent.bootstrap.bridge.ResponseCapture;
import dev.idempotency.agent.bootstrap.bridge.ServletAccessor;
import dev.idempotency.agent.bootstrap.bridge.ServletExchange;
import dev.idempotency.agent.core.gate.Admission;
import dev.idempotency.agent.core.gate.Answer;
import dev.idempotency.agent.core.gate.BoundedResponseBody;
import dev.idempotency.agent.core.gate.ExchangeAttributes;
import dev.idempotency.agent.core.log.AgentLog;
import dev.idempotency.agent.core.protocol.Problem;
import dev.idempotency.agent.core.protocol.ReplayHeaders;
import dev.idempotency.store.StoreException;
import dev.idempotency.store.StoredResponse;

import java.io.IOException;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * A request that owns its key and runs the application. The response is captured and, when the application is done,
 * recorded in the store before it is sent, so a client that saw it can always get it again. Server errors and
 * exceptions release the key instead (unless configured to keep 5xx).
 */
final class ProtectedExchange implements ServletExchange, ResponseCapture, AsyncEnd, BoundedResponseBody.StreamingStart {
    private final ServletAccessor http;
    private final Admission admission;
    private final boolean keepServerErrors;
    private final String description;
    private final Object originalResponse;
    private final Object request;
    private final Object response;
    private final BoundedResponseBody body;
    private int errorStatus;
    private String errorMessage;

    ProtectedExchange(ServletAccessor http, Admission admission, boolean keepServerErrors, long maxResponseBytes,
                      Object originalRequest, Object originalResponse, byte[] requestBody, Map<String, String[]> form) {
        this.http = http;
        this.admission = admission;
        this.keepServerErrors = keepServerErrors;
        this.description = admission.description();
        this.originalResponse = originalResponse;
        this.body = new BoundedResponseBody(maxResponseBytes, this);
        this.response = http.capturingResponse(originalResponse, this);
        this.request = http.replayingRequest(originalRequest, requestBody, form, response, this);
    }

    @Override public boolean answered() { return false; }
    @Override public Object request() { return request; }
    @Override public Object response() { return response; }

    /** The servlet returned or threw: finish now, or when its asynchronous cycle ends. */
    void serviceExited(Object currentRequest, Throwable thrown) {
        if (thrown == null && http.isAsyncStarted(currentRequest)) {
            http.setAttribute(currentRequest, IdempotentServletHandler.PENDING_ATTRIBUTE, this);
            http.onAsyncEnd(currentRequest, this);
            return;
        }
        finish(thrown);
    }

    // ---- capture callbacks from the application's writes

    @Override public void write(int b) throws IOException { body.write(b); }

    @Override public void write(byte[] bytes, int offset, int length) throws IOException { body.write(bytes, offset, length); }

    /**
     * A flush of a buffered response is held: the response leaves once it is recorded. Frameworks flush at the end of
     * every body (Spring does), so committing here would leave nothing to replay. A streaming response flushes through.
     */
    @Override
    public void flushBuffer() throws IOException {
        body.flushStream();
    }

    @Override public void resetBuffer() { body.reset(); }

    @Override
    public void sendError(int status, String message) {
        errorStatus = status;
        errorMessage = message;
        body.reset();
    }

    @Override
    public void sendRedirect(String location) {
        http.setStatus(originalResponse, 302);
        http.setHeader(originalResponse, "Location", location);
        body.reset();
    }

    @Override public void beforeAsyncComplete() { finish(null); }

    @Override public void completed() {
        if (!admission.isEnded()) {
            AgentLog.warn(description + ": asynchronous cycle ended without complete(); the key is released");
            finish(new IllegalStateException("asynchronous cycle ended unrecorded"));
        }
    }

    @Override public void failed(Throwable cause) { finish(cause); }

    /** The response outgrew the buffer or was flushed: record that it is not kept, then let it stream. */
    @Override
    public OutputStream beginStreaming(String reason) throws IOException {
        try {
            admission.recordNotKept(http.status(originalResponse), reason);
        } catch (StoreException e) {
            throw new IOException("idempotency store unavailable; the response cannot be sent safely", e);
        }
        return http.outputStream(originalResponse);
    }

    // ---- the end

    private void finish(Throwable thrown) {
        if (!admission.end()) return;
        Object route = http.attribute(request, ExchangeAttributes.ROUTE);
        if (route != null) AgentLog.debug(description + ": served by JAX-RS route " + route);
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
        int status = errorStatus > 0 ? errorStatus : http.status(originalResponse);
        if (status >= 500 && !keepServerErrors) {
            admission.release("status " + status);
            sendUnkept(status);
            return;
        }
        byte[] bytes = renderBody();
        StoredResponse recorded = new StoredResponse(status, keptHeaders(), bytes);
        if (!record(recorded)) return;
        try {
            http.setContentLength(originalResponse, bytes.length);
            OutputStream out = http.outputStream(originalResponse);
            out.write(bytes);
            out.flush();
        } catch (IOException e) {
            AgentLog.debug(description + ": client went away after the response was recorded (" + e + "); a retry gets it again");
        }
    }

    /** For sendError the agent renders the message itself, so that a replay is the same bytes. */
    private byte[] renderBody() {
        if (errorStatus == 0) return body.bytes();
        http.setStatus(originalResponse, errorStatus);
        if (errorMessage == null) return new byte[0];
        http.setHeader(originalResponse, "Content-Type", "text/plain;charset=UTF-8");
        return errorMessage.getBytes(StandardCharsets.UTF_8);
    }

    private List<StoredResponse.Header> keptHeaders() {
        List<StoredResponse.Header> headers = new ArrayList<>();
        for (String[] h : http.responseHeaders(originalResponse)) {
            if (ReplayHeaders.kept(h[0])) headers.add(new StoredResponse.Header(h[0], h[1]));
        }
        return headers;
    }

    /** Records the response; if the store cannot take it, the client gets a 503 rather than an unrepeatable answer. */
    private boolean record(StoredResponse recorded) {
        if (admission.record(recorded)) return true;
        Answer refusal = Answer.problem(Problem.STORE_UNAVAILABLE,
                "The request was processed but its response could not be recorded; do not assume it failed.", null);
        try {
            http.send(originalResponse, refusal.status(), refusal.headers(), refusal.body());
        } catch (IOException | RuntimeException e) {
            AgentLog.debug(description + ": could not send the problem: " + e);
        }
        return false;
    }

    /** A server error that is not kept goes to the client as the application produced it. */
    private void sendUnkept(int status) {
        try {
            if (errorStatus > 0) {
                http.sendError(originalResponse, errorStatus, errorMessage);
                return;
            }
            byte[] bytes = body.bytes();
            http.setContentLength(originalResponse, bytes.length);
            OutputStream out = http.outputStream(originalResponse);
            out.write(bytes);
            out.flush();
        } catch (IOException | RuntimeException e) {
            AgentLog.debug(description + ": could not send the " + status + " response: " + e);
        }
    }
}
