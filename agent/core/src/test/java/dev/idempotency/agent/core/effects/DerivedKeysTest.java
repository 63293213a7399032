package dev.idempotency.agent.core.effects;

import org.junit.jupiter.api.Test;

import java.nio.charset.StandardCharsets;
import java.util.HashSet;
import java.util.Set;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

class DerivedKeysTest {
    private static final byte[] SECRET = new byte[32];
    private static final byte[] OTHER_SECRET = "another installation's secret..".getBytes(StandardCharsets.US_ASCII);

    private static String key(byte[] secret, String scope, String key, String method, String host, int port, String path, int ordinal) {
        return DerivedKeys.derive(secret, scope, key, method, host, port, path, ordinal);
    }

    @Test
    void theSameCallOfTheSameRequestGetsTheSameKeyAndEveryInputChangesIt() {
        String base = key(SECRET, "global", "k1", "POST", "api.stripe.com", 443, "/v1/charges", 0);
        assertEquals(base, key(SECRET.clone(), "global", "k1", "POST", "api.stripe.com", 443, "/v1/charges", 0), "deterministic");
        Set<String> all = new HashSet<>();
        all.add(base);
        all.add(key(OTHER_SECRET, "global", "k1", "POST", "api.stripe.com", 443, "/v1/charges", 0));
        all.add(key(SECRET, "principal:alice", "k1", "POST", "api.stripe.com", 443, "/v1/charges", 0));
        all.add(key(SECRET, "global", "k2", "POST", "api.stripe.com", 443, "/v1/charges", 0));
        all.add(key(SECRET, "global", "k1", "PATCH", "api.stripe.com", 443, "/v1/charges", 0));
        all.add(key(SECRET, "global", "k1", "POST", "api.stripe.org", 443, "/v1/charges", 0));
        all.add(key(SECRET, "global", "k1", "POST", "api.stripe.com", 8443, "/v1/charges", 0));
        all.add(key(SECRET, "global", "k1", "POST", "api.stripe.com", 443, "/v1/refunds", 0));
        all.add(key(SECRET, "global", "k1", "POST", "api.stripe.com", 443, "/v1/charges", 1));
        // fields are length-prefixed: moving a boundary between two of them is another input
        all.add(key(SECRET, "globalk", "1", "POST", "api.stripe.com", 443, "/v1/charges", 0));
        assertEquals(10, all.size(), all.toString());
    }

    @Test
    void aKeyIsAVersion8UuidThatRevealsNeitherTheIncomingKeyNorTheScope() {
        String derived = key(SECRET, "principal:alice", "order-4711", "POST", "api.stripe.com", 443, "/v1/charges", 0);
        assertTrue(derived.matches("[0-9a-f]{8}-[0-9a-f]{4}-8[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}"), derived);
        assertFalse(derived.contains("4711") || derived.contains("alice"), derived);
    }
}
