package dev.idempotency.agent.core.protocol;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;

/**
 * Who a request says it is, as far as the agent can tell without the application's help: the container's (or JAX-RS)
 * principal, the configured tenant header, and every credential it carries (Authorization, the session it names,
 * credential cookies and headers). Credentials are secrets: they only ever leave this object as a keyed hash.
 */
public final class Credentials {
    private final String principal;
    private final String tenantHeader;
    private final List<String> secrets = new ArrayList<>();

    public Credentials(String principal, String tenantHeader) {
        this.principal = principal;
        this.tenantHeader = tenantHeader;
    }

    /** Adds a credential; {@code kind} and {@code name} tell its origin, so equal values of different origins differ. */
    public Credentials add(String kind, String name, String value) {
        if (value != null && !value.isEmpty()) secrets.add(kind + '\u0000' + (name == null ? "" : name) + '\u0000' + value);
        return this;
    }

    /**
     * These credentials as a client sends them once it keeps a cookie a response set: the cookie of that name replaced,
     * or removed when {@code value} is null or empty (a cookie the response deleted).
     */
    public Credentials withCookie(String name, String value) {
        Credentials next = new Credentials(principal, tenantHeader);
        String prefix = "cookie" + '\u0000' + name + '\u0000';
        for (String secret : secrets) {
            if (!secret.startsWith(prefix)) next.secrets.add(secret);
        }
        return next.add("cookie", name, value);
    }

    public String principal() { return principal; }

    public String tenantHeader() { return tenantHeader; }

    public boolean hasSecrets() { return !secrets.isEmpty(); }

    /** Every credential, in a canonical order (the order a client sends its cookies or headers in does not matter). */
    List<String> canonicalSecrets() {
        List<String> sorted = new ArrayList<>(secrets);
        Collections.sort(sorted);
        return sorted;
    }
}
