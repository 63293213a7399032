package dev.idempotency.agent.core.protocol;

import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

class TenantScopeTest {
    @Test
    void autoPrefersThePrincipalThenTheAuthorizationHashThenAnonymous() {
        TenantScope auto = new TenantScope(TenantMode.parse("auto"));
        assertEquals("principal:alice", auto.scopeOf("alice", "Bearer x", null));
        String hashed = auto.scopeOf(null, "Bearer secret-token", null);
        assertTrue(hashed.startsWith("authorization:"), hashed);
        assertFalse(hashed.contains("secret-token"), "credentials are never stored: " + hashed);
        assertNotEquals(hashed, auto.scopeOf(null, "Bearer other", null));
        assertEquals(TenantScope.ANONYMOUS, auto.scopeOf(null, null, null));
    }

    @Test
    void headerAndNoneModes() {
        assertEquals("header:acme", new TenantScope(TenantMode.parse("header:X-Tenant")).scopeOf("alice", null, "acme"));
        assertEquals(TenantScope.ANONYMOUS, new TenantScope(TenantMode.parse("header:X-Tenant")).scopeOf("alice", null, null));
        assertEquals("global", new TenantScope(TenantMode.parse("none")).scopeOf("alice", "Bearer x", null));
        assertEquals(TenantScope.ANONYMOUS, new TenantScope(TenantMode.parse("principal")).scopeOf(null, "Bearer x", null));
    }

    @Test
    void longScopesAreHashedToFitTheStore() {
        String scope = new TenantScope(TenantMode.parse("principal")).scopeOf("x".repeat(400), null, null);
        assertTrue(scope.length() <= 255 && scope.startsWith("principal:sha256:"), scope);
    }

    @Test
    void badModesAreRejected() {
        assertNull(TenantMode.parse("header:"));
        assertNull(TenantMode.parse("header:bad header"));
        assertNull(TenantMode.parse("tenant"));
    }
}
