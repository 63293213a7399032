package dev.idempotency.agent.core.gate;

import java.io.IOException;
import java.io.InputStream;
import java.util.List;

/** What the gate needs to know about a request that carries a key, read from whichever transport it came through. */
public final class KeyedRequest {
    /** Opens the request body; called at most once. */
    public interface Body {
        InputStream open() throws IOException;
    }

    final String method;
    final String path;
    final String query;
    final String contentType;
    final String charset;
    final List<String> keyFields;
    final String principal;
    final String authorization;
    final String tenantHeader;
    final Body body;
    final String route;

    /**
     * @param route the matched route template when the transport knows it (JAX-RS), else null; for diagnostics only —
     *              the fingerprint always uses the concrete path
     */
    public KeyedRequest(String method, String path, String query, String contentType, String charset, List<String> keyFields,
                        String principal, String authorization, String tenantHeader, Body body, String route) {
        this.method = method;
        this.path = path;
        this.query = query;
        this.contentType = contentType;
        this.charset = charset;
        this.keyFields = keyFields;
        this.principal = principal;
        this.authorization = authorization;
        this.tenantHeader = tenantHeader;
        this.body = body;
        this.route = route;
    }
}
