package dev.idempotency.agent.core.gate;

import dev.idempotency.agent.core.protocol.Problem;
import dev.idempotency.agent.core.protocol.ReplayHeaders;
import dev.idempotency.store.StoredResponse;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;

/** A response the agent gives instead of the application: a replay or a problem. Transport-neutral. */
public final class Answer {
    private final int status;
    private final List<String[]> headers;
    private final byte[] body;

    private Answer(int status, List<String[]> headers, byte[] body) {
        this.status = status;
        this.headers = Collections.unmodifiableList(headers);
        this.body = body;
    }

    public static Answer problem(Problem problem, String detail, String retryAfter) {
        List<String[]> headers = new ArrayList<>();
        headers.add(new String[] {"Content-Type", Problem.MEDIA_TYPE});
        if (retryAfter != null) headers.add(new String[] {"Retry-After", retryAfter});
        return new Answer(problem.status(), headers, problem.body(detail));
    }

    /** The stored response as it was, marked as a replay. */
    static Answer replay(StoredResponse stored) {
        List<String[]> headers = new ArrayList<>();
        for (StoredResponse.Header h : stored.headers()) headers.add(new String[] {h.name(), h.value()});
        headers.add(new String[] {ReplayHeaders.REPLAYED, "true"});
        return new Answer(stored.status(), headers, stored.body());
    }

    public int status() { return status; }

    /** [name, value] pairs, in order. */
    public List<String[]> headers() { return headers; }

    public byte[] body() { return body; }
}
