package dev.idempotency.agent.core.protocol;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonGenerator;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;

/**
 * Every answer the agent gives instead of the application, as RFC 9457 problem details. Each kind has a stable type
 * URI, documented in docs/protocol.md.
 */
public enum Problem {
    KEY_MISSING(400, "Idempotency-Key required", "key-missing"),
    KEY_INVALID(400, "Invalid Idempotency-Key", "key-invalid"),
    REQUEST_TOO_LARGE(413, "Request too large for an idempotent request", "request-too-large"),
    REQUEST_UNREADABLE(400, "Request body could not be read", "request-unreadable"),
    KEY_REUSED(422, "Idempotency-Key reused with a different request", "key-reused"),
    IN_PROGRESS(409, "A request with this Idempotency-Key is in progress", "request-in-progress"),
    OUTCOME_UNKNOWN(409, "Outcome of the earlier request is unknown", "outcome-unknown"),
    RESPONSE_NOT_KEPT(409, "Original response was not kept", "response-not-kept"),
    STORE_UNAVAILABLE(503, "Idempotency store unavailable", "store-unavailable"),
    AGENT_FAULT(503, "Idempotency agent fault", "agent-fault"),
    AGENT_BUSY(503, "Idempotency agent busy", "agent-busy");

    public static final String MEDIA_TYPE = "application/problem+json";
    private static final String TYPE_PREFIX = "urn:idempotency-agent:problem:";
    private static final JsonFactory JSON = new JsonFactory();

    private final int status;
    private final String title;
    private final String type;

    Problem(int status, String title, String slug) {
        this.status = status;
        this.title = title;
        this.type = TYPE_PREFIX + slug;
    }

    public int status() { return status; }
    public String title() { return title; }
    public String type() { return type; }

    /** The problem document. */
    public byte[] body(String detail) {
        ByteArrayOutputStream out = new ByteArrayOutputStream(256);
        try (JsonGenerator g = JSON.createGenerator(out)) {
            g.writeStartObject();
            g.writeStringField("type", type);
            g.writeStringField("title", title);
            g.writeNumberField("status", status);
            g.writeStringField("detail", detail);
            g.writeEndObject();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return out.toByteArray();
    }
}
