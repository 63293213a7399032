package dev.idempotency.agent.core.gate;

import dev.idempotency.agent.core.protocol.CredentialNames;
import dev.idempotency.agent.core.protocol.Credentials;
import dev.idempotency.agent.core.protocol.TenantMode;
import dev.idempotency.agent.core.protocol.TenantScope;
import org.junit.jupiter.api.Test;

import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.Collections;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

/** The scope of a retry is the one its own credentials give: each expectation is computed as the retry's would be. */
class SessionScopeTest {
    private final TenantScope tenants = new TenantScope(TenantMode.parse("auto"), () -> "secret".getBytes(StandardCharsets.UTF_8));
    private final CredentialNames cookies = CredentialNames.parse("*sess*,*auth*,*token*,sid");

    private SessionScope of(Credentials who) {
        return new SessionScope(tenants, cookies, who, tenants.scopeOf(who));
    }

    private static List<String[]> setCookies(String... values) {
        return Arrays.stream(values).map(v -> new String[] {"Set-Cookie", v}).toList();
    }

    @Test
    void anAnonymousRequestThatCreatesASessionIsRetriedInThatSessionsScope() {
        String after = of(new Credentials(null, null)).afterResponse(setCookies("JSESSIONID=ABC123; Path=/shop; HttpOnly"));
        assertEquals(tenants.scopeOf(new Credentials(null, null).add("cookie", "JSESSIONID", "ABC123")), after);
        assertNotEquals(TenantScope.ANONYMOUS, after);
    }

    @Test
    void aSessionCookieTheContainerWritesOnlyAtCommitCountsAsSet() {
        // Open Liberty and Undertow hold their session cookie apart from the headers: it is recorded under the marker
        List<String[]> held = Collections.singletonList(new String[] {dev.idempotency.agent.bootstrap.bridge.ServletAccessor.ADDED_COOKIE,
                "JSESSIONID=0000AbC:f1b2c3d4; Path=/; HttpOnly"});
        String after = of(new Credentials(null, null)).afterResponse(held);
        assertEquals(tenants.scopeOf(new Credentials(null, null).add("cookie", "JSESSIONID", "0000AbC:f1b2c3d4")), after);
    }

    @Test
    void aSessionReplacedAtLoginKeepsTheRequestsOtherCredentials() {
        Credentials who = new Credentials(null, null).add("cookie", "JSESSIONID", "OLD").add("authorization", null, "Bearer k");
        String after = of(who).afterResponse(setCookies("JSESSIONID=NEW; Path=/"));
        assertEquals(tenants.scopeOf(new Credentials(null, null).add("authorization", null, "Bearer k").add("cookie", "JSESSIONID", "NEW")), after);
    }

    @Test
    void aDeletedSessionCookieIsRetriedWithoutIt() {
        Credentials who = new Credentials(null, null).add("cookie", "JSESSIONID", "OLD").add("cookie", "auth_token", "T");
        String after = of(who).afterResponse(setCookies("JSESSIONID=; Max-Age=0; Path=/"));
        assertEquals(tenants.scopeOf(new Credentials(null, null).add("cookie", "auth_token", "T")), after);
    }

    @Test
    void noScopeOfItsOwnWhenNothingChangesIt() {
        assertNull(of(new Credentials(null, null)).afterResponse(setCookies("theme=dark; Path=/")), "not a credential cookie");
        assertNull(of(new Credentials(null, null)).afterResponse(Collections.singletonList(new String[] {"Content-Type", "text/plain"})));
        assertNull(of(new Credentials("alice", null)).afterResponse(setCookies("JSESSIONID=ABC")), "a principal's scope is its own");
        Credentials same = new Credentials(null, null).add("cookie", "JSESSIONID", "ABC");
        assertNull(of(same).afterResponse(setCookies("JSESSIONID=ABC; Path=/")), "the session the request already had");
    }
}
