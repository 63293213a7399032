package dev.idempotency.agent.core.gate;

import dev.idempotency.agent.core.config.AgentConfig;
import dev.idempotency.agent.core.protocol.Credentials;
import dev.idempotency.agent.core.protocol.TenantMode;

import java.util.List;
import java.util.Locale;
import java.util.function.Function;

/** Who a request is, as the configured tenant mode reads it, from whichever transport brought the request. */
public final class RequestCredentials {
    private RequestCredentials() {
    }

    /**
     * @param headers     every value of a request header, by name
     * @param cookies     the request's cookies as [name, value]
     * @param liveSession the session id named in the URL when that session is live, else null (cookies count as sent)
     */
    public static Credentials of(AgentConfig config, String principal, Function<String, List<String>> headers, List<String[]> cookies,
                                 String liveSession) {
        TenantMode tenant = config.tenant;
        String tenantHeader = null;
        if (tenant.kind() == TenantMode.Kind.HEADER) {
            List<String> values = headers.apply(tenant.headerName());
            tenantHeader = values.isEmpty() ? null : values.get(0);
        }
        Credentials who = new Credentials(principal, tenantHeader);
        if (tenant.kind() != TenantMode.Kind.AUTO) return who;
        for (String value : headers.apply("Authorization")) who.add("authorization", null, value);
        who.add("session", null, liveSession);
        for (String name : config.credentialHeaders.names()) {
            for (String value : headers.apply(name)) who.add("header", name.toLowerCase(Locale.ROOT), value);
        }
        for (String[] cookie : cookies) {
            if (config.credentialCookies.matches(cookie[0])) who.add("cookie", cookie[0], cookie[1]);
        }
        return who;
    }
}
