package dev.idempotency.agent.core.protocol;

import java.util.function.Supplier;

/**
 * Derives the scope a key lives in: records of different scopes never meet. Scopes are prefixed by their origin so
 * that, say, a principal named like a hash can never meet a credential hash. Under {@code auto}, a request with a
 * principal lives in the principal's scope; one without a principal but with credentials lives in a scope that is an
 * HMAC of all of them, keyed with the installation's secret (so nothing in the store or the log can be turned back
 * into a credential, and a leaked table cannot be matched against guessed passwords); only a request with no
 * credential at all shares the anonymous scope.
 */
public final class TenantScope {
    public static final String ANONYMOUS = "anonymous";
    private static final int MAX_LENGTH = 255;

    private final TenantMode mode;
    private final Supplier<byte[]> secret;

    /** @param secret the installation's secret, shared by every node of one store; asked only when needed */
    public TenantScope(TenantMode mode, Supplier<byte[]> secret) {
        this.mode = mode;
        this.secret = secret;
    }

    public TenantMode mode() { return mode; }

    /** True for a scope of one principal or one set of credentials; false for a scope several clients share. */
    public static boolean isPersonal(String scope) {
        return scope.startsWith("principal:") || scope.startsWith("credentials:");
    }

    public String scopeOf(Credentials who) {
        switch (mode.kind()) {
            case NONE:
                return "global";
            case PRINCIPAL:
                return who.principal() == null ? ANONYMOUS : fit("principal:" + who.principal());
            case HEADER:
                return who.tenantHeader() == null || who.tenantHeader().isEmpty() ? ANONYMOUS : fit("header:" + who.tenantHeader());
            default:
                if (who.principal() != null) return fit("principal:" + who.principal());
                if (who.hasSecrets()) return "credentials:" + hmac(who);
                return ANONYMOUS;
        }
    }

    private String hmac(Credentials who) {
        return RequestFingerprint.hex(SecretHash.of(secret.get(), new byte[0], who.canonicalSecrets()));
    }

    private static String fit(String scope) {
        return scope.length() <= MAX_LENGTH ? scope : scope.substring(0, scope.indexOf(':') + 1) + "sha256:" + RequestFingerprint.sha256Hex(scope);
    }
}
