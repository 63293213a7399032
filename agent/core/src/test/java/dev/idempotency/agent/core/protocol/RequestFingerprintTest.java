package dev.idempotency.agent.core.protocol;

import org.junit.jupiter.api.Test;

import java.nio.charset.StandardCharsets;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

class RequestFingerprintTest {
    private static String fp(String method, String path, String query, String type, String body) {
        return RequestFingerprint.of(method, path, query, type, "UTF-8", body.getBytes(StandardCharsets.UTF_8));
    }

    @Test
    void jsonKeyOrderWhitespaceAndNumberSpellingDoNotMatter() {
        String a = fp("POST", "/p", null, "application/json", "{\"b\": [1, 2.50, {\"y\":1,\"x\":2}], \"a\": \"é\"}");
        String b = fp("POST", "/p", null, "application/json; charset=UTF-8", "{\"a\":\"\\u00e9\",\"b\":[1,2.5,{\"x\":2,\"y\":1}]}");
        assertEquals(a, b);
    }

    @Test
    void anyChangeOfMeaningChangesTheFingerprint() {
        String base = fp("POST", "/p", "x=1", "application/json", "{\"a\":1}");
        assertNotEquals(base, fp("POST", "/p", "x=1", "application/json", "{\"a\":2}"));
        assertNotEquals(base, fp("PATCH", "/p", "x=1", "application/json", "{\"a\":1}"));
        assertNotEquals(base, fp("POST", "/q", "x=1", "application/json", "{\"a\":1}"));
        assertNotEquals(base, fp("POST", "/p", "x=2", "application/json", "{\"a\":1}"));
        assertNotEquals(base, fp("POST", "/p", "x=1", "application/json", "[{\"a\":1}]"));
        assertNotEquals(fp("POST", "/p", null, "application/json", "{\"a\":\"1\"}"), fp("POST", "/p", null, "application/json", "{\"a\":1}"));
    }

    @Test
    void formBodiesCompareAsSortedParameters() {
        String type = "application/x-www-form-urlencoded";
        assertEquals(fp("POST", "/p", null, type, "a=1&b=2&b=3"), fp("POST", "/p", null, type, "b=2&a=1&b=3"));
        assertEquals(fp("POST", "/p", null, type, "name=J%C3%BCrgen"), fp("POST", "/p", null, type, "name=J%c3%bcrgen"));
        assertNotEquals(fp("POST", "/p", null, type, "a=1"), fp("POST", "/p", null, type, "a=2"));
    }

    @Test
    void otherBodiesCompareAsRawBytesAndInvalidJsonToo() {
        assertNotEquals(fp("POST", "/p", null, "text/plain", "a b"), fp("POST", "/p", null, "text/plain", "a  b"));
        assertNotEquals(fp("POST", "/p", null, "application/json", "{bad"), fp("POST", "/p", null, "application/json", "{bad "));
        assertNull(RequestFingerprint.canonicalJson("{\"a\":1,\"a\":2}".getBytes(StandardCharsets.UTF_8)), "duplicate keys are not canonical JSON");
        assertNull(RequestFingerprint.canonicalJson("{} {}".getBytes(StandardCharsets.UTF_8)));
    }

    @Test
    void queryParameterOrderDoesNotMatter() {
        assertEquals(fp("POST", "/p", "a=1&b=2", null, ""), fp("POST", "/p", "b=2&a=1", null, ""));
    }

    @Test
    void theFingerprintIsHexSha256() {
        assertEquals(64, fp("POST", "/p", null, null, "").length());
    }
}
