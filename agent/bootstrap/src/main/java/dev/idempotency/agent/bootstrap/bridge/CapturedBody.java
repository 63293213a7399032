package dev.idempotency.agent.bootstrap.bridge;

import java.util.List;
import java.util.Map;

/**
 * The body of a keyed request, read once by the agent at the request's outermost entry and handed back to every
 * filter and servlet after it. Implemented by the agent core.
 */
public interface CapturedBody {

    byte[] bytes();

    /**
     * The parameters the application sees for a form or multipart body: the query string's, then the body's, the body
     * decoded with {@code charset} (the request's encoding when the application first asks). Null for any other body:
     * the container's own (query-string) parameters apply.
     */
    Map<String, String[]> parameters(String charset);

    /** The parts of a multipart body, in order; null when the body is not multipart. */
    List<CapturedPart> parts();
}
