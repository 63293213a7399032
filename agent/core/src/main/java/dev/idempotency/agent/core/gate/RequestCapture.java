package dev.idempotency.agent.core.gate;

import dev.idempotency.agent.bootstrap.bridge.CapturedBody;
import dev.idempotency.agent.bootstrap.bridge.CapturedPart;
import dev.idempotency.agent.core.telemetry.Outcome;
import dev.idempotency.agent.core.protocol.FormBody;
import dev.idempotency.agent.core.protocol.MediaType;
import dev.idempotency.agent.core.protocol.RequestFingerprint;

import java.util.List;
import java.util.Map;

/**
 * A keyed request as the agent took it at its outermost entry ("take the body early"): the key, the normalised path,
 * the body, read once. The decision is made later, where the application's own code would start. Also what every
 * filter and servlet after the entry reads the body, parameters and parts from. Either it holds all that, or the
 * {@link #problem()} the request is refused with.
 */
public final class RequestCapture implements CapturedBody {
    private final String method;
    private final String path;
    private final String query;
    private final String contentType;
    private final String key;
    private final byte[] body;
    private final List<CapturedPart> multipart;
    private final Answer problem;
    private final Outcome refusal;
    private final String description;
    /** What the body costs the agent's memory budget; null for an empty or refused body. */
    private final MemoryBudget.Charge memory;

    private RequestCapture(String method, String path, String query, String contentType, String key, byte[] body,
                           List<CapturedPart> multipart, Outcome refusal, Answer problem, MemoryBudget.Charge memory) {
        this.memory = memory;
        this.method = method;
        this.path = path;
        this.query = query;
        this.contentType = contentType;
        this.key = key;
        this.body = body;
        this.multipart = multipart;
        this.problem = problem;
        this.refusal = refusal;
        this.description = method + " " + path + " [" + key + "]";
    }

    static RequestCapture of(String method, String path, String query, String contentType, String key, byte[] body,
                             List<CapturedPart> multipart, MemoryBudget.Charge memory) {
        return new RequestCapture(method, path, query, contentType, key, body, multipart, null, null, memory);
    }

    static RequestCapture refused(String method, String path, Outcome refusal, Answer problem) {
        return new RequestCapture(method, path, null, null, null, new byte[0], null, refusal, problem, null);
    }

    /** The exchange is over (answered, or recorded and sent): the body no longer counts against the budget. */
    public void releaseMemory() {
        if (memory != null) memory.release();
    }

    /** What kind of refusal {@link #problem()} is, for the figures. */
    public Outcome refusal() { return refusal; }

    /** Why the request is refused before the application could run; null when it was captured. */
    public Answer problem() { return problem; }

    public String path() { return path; }

    public String method() { return method; }

    String key() { return key; }

    public String description() { return description; }

    String fingerprint() {
        return RequestFingerprint.of(method, path, query, contentType, body, multipart);
    }

    @Override
    public byte[] bytes() { return body; }

    @Override
    public Map<String, String[]> parameters(String charset) {
        if (FormBody.isForm(contentType)) return FormBody.parse(query, body, charset);
        if (multipart == null) return null;
        Map<String, List<String>> collected = FormBody.queryParameters(query);
        for (CapturedPart part : parts()) {
            if (part.fileName() != null) continue;
            String partCharset = MediaType.parameter(part.contentType(), "charset");
            FormBody.add(collected, part.name(), part.text(FormBody.charset(partCharset != null ? partCharset : charset)));
        }
        return FormBody.toArrays(collected);
    }

    @Override
    public List<CapturedPart> parts() {
        return multipart;
    }
}
