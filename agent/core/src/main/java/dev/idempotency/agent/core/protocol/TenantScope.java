package dev.idempotency.agent.core.protocol;

/**
 * Derives the scope a key lives in. Scopes are prefixed by their origin so that, say, a principal named like a hash
 * can never meet an Authorization hash; long values are hashed to fit the store.
 */
public final class TenantScope {
    public static final String ANONYMOUS = "anonymous";
    private static final int MAX_LENGTH = 255;

    private final TenantMode mode;

    public TenantScope(TenantMode mode) {
        this.mode = mode;
    }

    public TenantMode mode() { return mode; }

    /**
     * @param principal   the authenticated principal's name, or null
     * @param authorization the Authorization header, or null
     * @param tenantHeader the configured tenant header's value (mode header:NAME), or null
     */
    public String scopeOf(String principal, String authorization, String tenantHeader) {
        switch (mode.kind()) {
            case NONE:
                return "global";
            case PRINCIPAL:
                return principal == null ? ANONYMOUS : fit("principal:" + principal);
            case HEADER:
                return tenantHeader == null || tenantHeader.isEmpty() ? ANONYMOUS : fit("header:" + tenantHeader);
            default:
                if (principal != null) return fit("principal:" + principal);
                if (authorization != null && !authorization.isEmpty()) return "authorization:" + RequestFingerprint.sha256Hex(authorization);
                return ANONYMOUS;
        }
    }

    private static String fit(String scope) {
        return scope.length() <= MAX_LENGTH ? scope : scope.substring(0, scope.indexOf(':') + 1) + "sha256:" + RequestFingerprint.sha256Hex(scope);
    }
}
