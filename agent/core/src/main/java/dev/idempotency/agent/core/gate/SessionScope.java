package dev.idempotency.agent.core.gate;

import dev.idempotency.agent.core.protocol.CredentialNames;
import dev.idempotency.agent.core.protocol.Credentials;
import dev.idempotency.agent.core.protocol.ReplayHeaders;
import dev.idempotency.agent.core.protocol.TenantScope;

import java.util.List;
import java.util.Locale;

/**
 * The scope a retry falls in once its client keeps the credential cookies the first response set: a keyed request
 * whose response creates a session (or replaces one, as a login does) is retried with that cookie, which under
 * {@code tenant=auto} is another scope. The response is recorded under that scope too, so such a retry is a replay;
 * only a client that received the cookie can send it, so no other client reaches that record.
 */
final class SessionScope {
    private final TenantScope tenants;
    private final CredentialNames credentialCookies;
    private final Credentials who;
    private final String scope;

    SessionScope(TenantScope tenants, CredentialNames credentialCookies, Credentials who, String scope) {
        this.tenants = tenants;
        this.credentialCookies = credentialCookies;
        this.who = who;
        this.scope = scope;
    }

    /** The scope of a retry that carries the credential cookies these response headers set; null when it is this one. */
    String afterResponse(List<String[]> headers) {
        Credentials next = who;
        for (String[] header : headers) {
            if (!ReplayHeaders.setsCookie(header[0])) continue;
            int eq = header[1].indexOf('=');
            if (eq <= 0) continue;
            String name = header[1].substring(0, eq).trim();
            if (!credentialCookies.matches(name)) continue;
            int end = header[1].indexOf(';', eq);
            String value = header[1].substring(eq + 1, end < 0 ? header[1].length() : end).trim();
            next = next.withCookie(name, deletes(header[1]) ? null : value);
        }
        if (next == who) return null;
        String after = tenants.scopeOf(next);
        return after.equals(scope) ? null : after;
    }

    /** A Set-Cookie that removes its cookie: Max-Age of zero or less (an Expires in the past is not read). */
    private static boolean deletes(String setCookie) {
        for (String attribute : setCookie.split(";")) {
            String a = attribute.trim().toLowerCase(Locale.ROOT);
            if (a.startsWith("max-age=")) {
                String age = a.substring("max-age=".length()).trim();
                return age.startsWith("-") || age.matches("0+");
            }
        }
        return false;
    }
}
