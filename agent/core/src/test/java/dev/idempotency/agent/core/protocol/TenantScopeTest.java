package dev.idempotency.agent.core.protocol;

import org.junit.jupiter.api.Test;

import java.nio.charset.StandardCharsets;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

class TenantScopeTest {
    private static final byte[] SECRET = "installation-secret-0123456789ab".getBytes(StandardCharsets.US_ASCII);

    private static TenantScope scopes(String mode) {
        return new TenantScope(TenantMode.parse(mode), () -> SECRET);
    }

    private static Credentials who(String principal, String... kindNameValue) {
        Credentials c = new Credentials(principal, null);
        for (int i = 0; i < kindNameValue.length; i += 3) c.add(kindNameValue[i], kindNameValue[i + 1], kindNameValue[i + 2]);
        return c;
    }

    @Test
    void autoPrefersThePrincipalThenAKeyedHashOfEveryCredentialThenAnonymous() {
        TenantScope auto = scopes("auto");
        assertEquals("principal:alice", auto.scopeOf(who("alice", "authorization", null, "Bearer x")));
        String hashed = auto.scopeOf(who(null, "authorization", null, "Bearer secret-token"));
        assertTrue(hashed.startsWith("credentials:"), hashed);
        assertFalse(hashed.contains("secret-token"), "credentials are never stored: " + hashed);
        assertNotEquals(hashed, auto.scopeOf(who(null, "authorization", null, "Bearer other")));
        assertEquals(TenantScope.ANONYMOUS, auto.scopeOf(who(null)));
    }

    @Test
    void differentSessionsCookiesOrApiKeysNeverShareAScope() {
        TenantScope auto = scopes("auto");
        String alice = auto.scopeOf(who(null, "cookie", "LEGACY_SESSION", "a1"));
        String bob = auto.scopeOf(who(null, "cookie", "LEGACY_SESSION", "b2"));
        assertNotEquals(alice, bob);
        assertNotEquals(auto.scopeOf(who(null, "header", "x-api-key", "key-alice")), auto.scopeOf(who(null, "header", "x-api-key", "key-bob")));
        assertNotEquals(auto.scopeOf(who(null, "session", null, "S1")), auto.scopeOf(who(null, "session", null, "S2")));
        // the same value under another name or origin is another credential
        assertNotEquals(auto.scopeOf(who(null, "header", "x-api-key", "v")), auto.scopeOf(who(null, "cookie", "x-api-key", "v")));
    }

    @Test
    void theOrderCredentialsArriveInDoesNotMatterButEveryOneCounts() {
        TenantScope auto = scopes("auto");
        String both = auto.scopeOf(who(null, "cookie", "SESSION", "s", "header", "x-api-key", "k"));
        assertEquals(both, auto.scopeOf(who(null, "header", "x-api-key", "k", "cookie", "SESSION", "s")));
        assertNotEquals(both, auto.scopeOf(who(null, "cookie", "SESSION", "s")));
    }

    @Test
    void theHashIsKeyedByTheInstallationSecret() {
        Credentials c = who(null, "authorization", null, "Basic dXNlcjpwYXNz");
        String one = scopes("auto").scopeOf(c);
        String other = new TenantScope(TenantMode.parse("auto"), () -> "another-installation-secret-9876".getBytes(StandardCharsets.US_ASCII)).scopeOf(c);
        assertNotEquals(one, other, "an unsalted hash could be matched against guessed passwords");
        assertFalse(one.contains(RequestFingerprint.sha256Hex("Basic dXNlcjpwYXNz")));
    }

    @Test
    void headerAndNoneModes() {
        assertEquals("header:acme", scopes("header:X-Tenant").scopeOf(new Credentials("alice", "acme")));
        assertEquals(TenantScope.ANONYMOUS, scopes("header:X-Tenant").scopeOf(new Credentials("alice", null)));
        assertEquals("global", scopes("none").scopeOf(who("alice", "authorization", null, "Bearer x")));
        assertEquals(TenantScope.ANONYMOUS, scopes("principal").scopeOf(who(null, "authorization", null, "Bearer x")));
    }

    @Test
    void longScopesAreHashedToFitTheStore() {
        String scope = scopes("principal").scopeOf(who("x".repeat(400)));
        assertTrue(scope.length() <= 255 && scope.startsWith("principal:sha256:"), scope);
    }

    @Test
    void badModesAreRejected() {
        assertNull(TenantMode.parse("header:"));
        assertNull(TenantMode.parse("header:bad header"));
        assertNull(TenantMode.parse("tenant"));
    }

    @Test
    void credentialCookieNamesArePatterns() {
        CredentialNames names = CredentialNames.parse("*sess*,*auth*,sid");
        assertTrue(names.matches("JSESSIONID"));
        assertTrue(names.matches("LEGACY_SESSION"));
        assertTrue(names.matches("X-Auth"));
        assertTrue(names.matches("SID"));
        assertFalse(names.matches("sidebar"));
        assertFalse(names.matches("_ga"));
        assertNull(CredentialNames.parse("bad name"));
    }
}
