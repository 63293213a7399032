package dev.idempotency.agent.core.jaxrs;

import dev.idempotency.agent.bootstrap.bridge.JaxrsAccessor;
import dev.idempotency.agent.core.gate.Admission;
import dev.idempotency.agent.core.gate.BoundedResponseBody;
import dev.idempotency.agent.core.gate.MemoryBudget;
import dev.idempotency.agent.core.gate.RequestCapture;
import dev.idempotency.store.StoreException;

import java.io.IOException;
import java.io.OutputStream;
import java.util.List;

/**
 * A JAX-RS request that owns its key outside any servlet container: the entity the resource produces is captured as
 * the message body writer writes it, recorded, and only then written to the client.
 */
final class JaxrsExchange implements BoundedResponseBody.StreamingStart {
    private final Admission admission;
    private final long maxResponseBytes;
    private int status = 200;
    private OutputStream client;

    private final boolean suspended;
    private final RequestCapture capture;
    private final MemoryBudget memory;

    /** @param suspended the resource is suspended (@Suspended AsyncResponse): a server error may be the runtime's timeout */
    JaxrsExchange(Admission admission, RequestCapture capture, long maxResponseBytes, MemoryBudget memory, boolean suspended) {
        this.admission = admission;
        this.capture = capture;
        this.memory = memory;
        this.suspended = suspended;
        this.maxResponseBytes = maxResponseBytes;
    }

    /** The resource answered; a response without entity ends the exchange here, before anything is sent. */
    void responded(JaxrsAccessor jaxrs, Object response) {
        status = jaxrs.status(response);
        if (!jaxrs.hasEntity(response)) {
            capture.releaseMemory();
            finish(jaxrs.responseHeaders(response), new byte[0]);
        }
    }

    /** Captures the entity while the writer writes it, records it, then sends it. */
    void write(JaxrsAccessor jaxrs, Object writer) throws IOException {
        capture.releaseMemory(); // the resource has run: its entity was read
        client = jaxrs.output(writer);
        BoundedResponseBody body = new BoundedResponseBody(maxResponseBytes, this, memory);
        try {
            writeCaptured(jaxrs, writer, body);
        } finally {
            body.releaseMemory();
        }
    }

    private void writeCaptured(JaxrsAccessor jaxrs, Object writer, BoundedResponseBody body) throws IOException {
        jaxrs.setOutput(writer, body.asOutputStream());
        try {
            jaxrs.proceed(writer);
        } catch (IOException | RuntimeException e) {
            // a body already streaming was recorded (and counted) as not kept when it began: that ended its key
            if (admission.end() && !body.isStreaming()) admission.release("writing the entity failed: " + e);
            throw e;
        } finally {
            jaxrs.setOutput(writer, client);
        }
        if (body.isStreaming()) {
            admission.end();
            return;
        }
        byte[] bytes = body.bytes();
        if (!finish(jaxrs.writerHeaders(writer), bytes)) {
            throw new IOException("the response could not be recorded in the idempotency store (or the key was taken over), so it is not sent");
        }
        client.write(bytes);
    }

    /** False when the response must not be sent: it could not be recorded, or the key was taken over meanwhile. */
    private boolean finish(List<String[]> headers, byte[] bytes) {
        if (!admission.end()) return true;
        if (suspended && status >= 500) {
            admission.abandonedByContainer(); // the runtime timed the resource out; its work may still run
            return true;
        }
        Admission.Conclusion conclusion = admission.conclude(status, headers, bytes);
        return conclusion == Admission.Conclusion.RECORDED || conclusion == Admission.Conclusion.RELEASED;
    }

    @Override
    public OutputStream beginStreaming(String reason) throws IOException {
        try {
            admission.recordNotKept(status, reason);
        } catch (StoreException e) {
            throw new IOException("idempotency store unavailable; the response cannot be sent safely", e);
        }
        return client;
    }
}
