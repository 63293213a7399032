package dev.idempotency.agent.core.servlet;

import dev.idempotency.agent.bootstrap.bridge.ResponseCapture;
import dev.idempotency.agent.bootstrap.bridge.ServletAccessor;
import dev.idempotency.agent.bootstrap.bridge.ServletExchange;
import dev.idempotency.agent.core.gate.Admission;
import dev.idempotency.agent.core.gate.BoundedResponseBody;
import dev.idempotency.agent.core.gate.MemoryBudget;
import dev.idempotency.agent.core.log.AgentLog;

import java.io.IOException;
import java.io.OutputStream;

/**
 * The error page a container renders, through a dispatch of its own, for a keyed request whose application called
 * sendError: the application's page mapped in web.xml, or Spring Boot's error controller. The sendError was recorded as
 * the call already (a page the container renders itself, without a dispatch, is rendered again for each replay); the
 * page is captured here, recorded in its place, then sent, so replays get this page byte for byte. Should it not be
 * recorded (too large, the store away), the call stays recorded and replays render the page again.
 */
final class ErrorPageExchange implements ServletExchange, ResponseCapture, BoundedResponseBody.StreamingStart {
    /** Set on the request while its sendError's error page may still be dispatched. */
    static final String ATTRIBUTE = "dev.idempotency.agent.error-page";

    private final ServletAccessor http;
    private final Admission admission;
    private final long maxResponseBytes;
    private final MemoryBudget memory;
    private Object request;
    private Object response;
    private Object capturing;
    private BoundedResponseBody body;
    /** The page itself called sendError or sendRedirect: the container makes that, and nothing is recorded. */
    private String[] call;

    /** Set once any keyed request awaits its error page: from then on an error dispatch of another method is looked at. */
    private static volatile boolean everAwaited;

    static boolean everAwaited() {
        return everAwaited;
    }

    ErrorPageExchange(ServletAccessor http, Admission admission, long maxResponseBytes, MemoryBudget memory) {
        if (!everAwaited) everAwaited = true;
        this.http = http;
        this.admission = admission;
        this.maxResponseBytes = maxResponseBytes;
        this.memory = memory;
    }

    /** The error dispatch enters: what the page writes goes to a buffer until it is recorded. */
    ServletExchange begin(Object dispatchRequest, Object dispatchResponse) {
        this.request = dispatchRequest;
        this.response = dispatchResponse;
        this.body = new BoundedResponseBody(maxResponseBytes, this, memory);
        this.capturing = http.capturingResponse(dispatchRequest, dispatchResponse, this);
        return this;
    }

    @Override public boolean answered() { return false; }
    @Override public Object request() { return request; }
    @Override public Object response() { return capturing; }

    /** The error dispatch returned or threw. */
    void exited(Throwable thrown) {
        try {
            http.flushWriter(capturing);
            if (thrown != null || body.isStreaming()) return; // the container handles a failing page; a streamed one went out
            int status = http.status(capturing);
            if (call != null) {
                AnswerSender.render(http, response, status, call, body.bytes());
                return;
            }
            byte[] page = body.bytes();
            admission.recordErrorPage(status, http.responseHeaders(capturing), page);
            AnswerSender.writeBody(http, response, page);
        } catch (IOException | RuntimeException e) {
            AgentLog.debug(admission.description() + ": could not send the error page (" + e + "); replays render it again");
        } finally {
            body.releaseMemory();
        }
    }

    // ---- what the page writes

    @Override public void write(int b) throws IOException { body.write(b); }

    @Override public void write(byte[] bytes, int offset, int length) throws IOException { body.write(bytes, offset, length); }

    @Override public void flushBuffer() { } // held until the page is recorded, as the application's own response

    @Override public void resetBuffer() { body.reset(); }

    @Override
    public void sendError(int status, String message) {
        call = dev.idempotency.agent.core.gate.ContainerRendered.error(message);
        http.setStatus(capturing, status);
        body.reset();
    }

    @Override
    public void sendRedirect(String location, int status, boolean clearBuffer) {
        call = dev.idempotency.agent.core.gate.ContainerRendered.redirect(location, clearBuffer);
        http.setStatus(capturing, status);
        if (clearBuffer) body.reset();
    }

    @Override public void beforeAsyncComplete() { } // an error page runs within its dispatch

    /** A page too large to keep streams to the client; the call stays recorded and replays render the page again. */
    @Override
    public OutputStream beginStreaming(String reason) throws IOException {
        return http.outputStream(response);
    }
}
