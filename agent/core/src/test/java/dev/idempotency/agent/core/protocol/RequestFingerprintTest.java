package dev.idempotency.agent.core.protocol;

import org.junit.jupiter.api.Test;

import java.nio.charset.StandardCharsets;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

class RequestFingerprintTest {
    static final String FORM = "application/x-www-form-urlencoded";

    private static String fp(String method, String path, String query, String type, String body) {
        return RequestFingerprint.of(method, path, query, type, body.getBytes(StandardCharsets.UTF_8));
    }

    private static String form(String body) {
        return fp("POST", "/p", null, FORM, body);
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
    void formsCompareByDecodedPairsSortedByNameOnly() {
        assertEquals(form("a=1&b=2&b=3"), form("b=2&a=1&b=3"));
        assertEquals(form("name=J%C3%BCrgen"), form("name=J%c3%bcrgen"));
        assertEquals(form("a=x+y"), form("a=x%20y"));
        assertEquals(form("a=1&&b=2&"), form("a=1&b=2"));
        assertNotEquals(form("a=1"), form("a=2"));
    }

    @Test
    void repeatedFieldsKeepTheirOrder() {
        assertNotEquals(form("item=A&qty=1&item=B&qty=2"), form("item=B&qty=1&item=A&qty=2"));
        assertNotEquals(form("b=2&b=3"), form("b=3&b=2"));
        assertEquals(form("item=A&qty=1&item=B&qty=2"), form("qty=1&item=A&qty=2&item=B"));
    }

    @Test
    void theClientsCharsetCountsButNotItsSpelling() {
        byte[] body = "note=%C0".getBytes(StandardCharsets.US_ASCII);
        assertEquals(RequestFingerprint.of("POST", "/p", null, FORM + "; charset=UTF-8", body),
                RequestFingerprint.of("POST", "/p", null, FORM + ";charset=utf-8", body));
        assertNotEquals(RequestFingerprint.of("POST", "/p", null, FORM + "; charset=windows-1251", body),
                RequestFingerprint.of("POST", "/p", null, FORM + "; charset=ISO-8859-1", body), "the same bytes, another text");
        assertNotEquals(fp("POST", "/p", null, "text/plain", "<a/>"), fp("POST", "/p", null, "application/xml", "<a/>"));
        assertEquals(fp("POST", "/p", null, "text/plain; charset=utf-8", "x"), fp("POST", "/p", null, "Text/Plain; Charset=\"UTF-8\"", "x"));
        assertEquals(fp("POST", "/p", null, "text/plain", "x"), fp("POST", "/p", null, "Text/Plain", "x"));
    }

    /** getReader() decodes a raw body by the charset named, so naming one (or another) makes another request. */
    @Test
    void rawBodiesCountTheCharsetTheyName() {
        byte[] body = "caf\u00e9".getBytes(StandardCharsets.ISO_8859_1);
        String plain = RequestFingerprint.of("POST", "/p", null, "text/plain", body);
        assertEquals(ExpectedFingerprint.of("raw;text/plain", body), plain, "no charset: as before");
        assertEquals(ExpectedFingerprint.of("raw;text/plain;charset=iso-8859-1", body),
                RequestFingerprint.of("POST", "/p", null, "text/plain; charset=ISO-8859-1", body));
        assertNotEquals(RequestFingerprint.of("POST", "/p", null, "text/plain; charset=ISO-8859-1", body),
                RequestFingerprint.of("POST", "/p", null, "text/plain; charset=windows-1252", body));
        assertNotEquals(plain, RequestFingerprint.of("POST", "/p", null, "text/plain; charset=UTF-8", body));
    }

    @Test
    void malformedEscapesNeverCollideWithTheirDecodedLookAlikes() {
        assertNotEquals(form("a=%zz"), form("a=%25zz"));
        assertNotEquals(form("a=%"), form("a=%25"));
        assertNotEquals(form("a%zz=1"), form("a%25zz=1"));
        assertNotEquals(fp("POST", "/p", "q=%zz", null, ""), fp("POST", "/p", "q=%25zz", null, ""));
    }

    @Test
    void repeatedQueryParametersKeepTheirOrder() {
        assertEquals(fp("POST", "/p", "a=1&b=2", null, ""), fp("POST", "/p", "b=2&a=1", null, ""));
        assertNotEquals(fp("POST", "/p", "tag=x&tag=y", null, ""), fp("POST", "/p", "tag=y&tag=x", null, ""));
    }

    @Test
    void multipartComparesPartsNotTheBoundary() {
        String type1 = "multipart/form-data; boundary=AAA";
        String type2 = "multipart/form-data; boundary=----BBB";
        String p1 = "Content-Disposition: form-data; name=\"note\"\r\n\r\nhello";
        String p2 = "Content-Disposition: form-data; name=\"file\"; filename=\"a.txt\"\r\nContent-Type: text/plain\r\n\r\nabc";
        String a = fp("POST", "/p", null, type1, MultipartBodyTest.body("AAA", p1, p2));
        assertEquals(a, fp("POST", "/p", null, type2, MultipartBodyTest.body("----BBB", p1, p2)));
        assertEquals(a, fp("POST", "/p", null, type2, MultipartBodyTest.body("----BBB", p2, p1)), "different names: order does not matter");
        assertNotEquals(a, fp("POST", "/p", null, type1, MultipartBodyTest.body("AAA", p1, p2.replace("abc", "abd"))));
        assertNotEquals(a, fp("POST", "/p", null, type1, MultipartBodyTest.body("AAA", p1, p2.replace("a.txt", "b.txt"))));
        assertNotEquals(a, fp("POST", "/p", null, type1, MultipartBodyTest.body("AAA", p1, p2.replace("text/plain", "text/csv"))));
        assertNotEquals(a, fp("POST", "/p", null, type1, MultipartBodyTest.body("AAA", p1, p2.replace("name=\"file\"", "name=\"doc\""))));
    }

    /** Part.getHeader shows every header as sent: a difference the application can read is another request. */
    @Test
    void multipartCountsEveryPartHeaderAsSent() {
        String type = "multipart/form-data; boundary=AAA";
        String p1 = "Content-Disposition: form-data; name=\"note\"\r\n\r\nhello";
        String p2 = "Content-Disposition: form-data; name=\"file\"; filename=\"a.txt\"\r\nContent-Type: text/plain\r\n\r\nabc";
        String a = fp("POST", "/p", null, type, MultipartBodyTest.body("AAA", p1, p2));
        assertNotEquals(a, fp("POST", "/p", null, type, MultipartBodyTest.body("AAA", p1, p2.replace("form-data", "attachment"))));
        assertNotEquals(a, fp("POST", "/p", null, type, MultipartBodyTest.body("AAA", p1,
                p2.replace("filename=\"a.txt\"", "filename=\"a.txt\"; filename*=UTF-8''b.txt"))));
        assertNotEquals(a, fp("POST", "/p", null, type, MultipartBodyTest.body("AAA", p1, "X-Note: 1\r\n" + p2)));
        assertNotEquals(a, fp("POST", "/p", null, type, MultipartBodyTest.body("AAA", p1, p2.replace("text/plain", "text/plain;x=1"))));
        assertEquals(a, fp("POST", "/p", null, type, MultipartBodyTest.body("AAA", p1,
                p2.replace("Content-Type: text/plain", "content-TYPE:\ttext/plain  "))), "names are case-insensitive, values trimmed");
    }

    @Test
    void multipartPartNamesCountByTheirBytes() {
        String type = "multipart/form-data; boundary=AAA";
        byte[] ff = MultipartBodyTest.body("AAA", "Content-Disposition: form-data; name=\"\u00ff\"\r\n\r\nx").getBytes(StandardCharsets.ISO_8859_1);
        byte[] fe = MultipartBodyTest.body("AAA", "Content-Disposition: form-data; name=\"\u00fe\"\r\n\r\nx").getBytes(StandardCharsets.ISO_8859_1);
        assertNotEquals(RequestFingerprint.of("POST", "/p", null, type, ff), RequestFingerprint.of("POST", "/p", null, type, fe));
    }

    @Test
    void otherBodiesCompareAsRawBytesAndInvalidJsonToo() {
        assertNotEquals(fp("POST", "/p", null, "text/plain", "a b"), fp("POST", "/p", null, "text/plain", "a  b"));
        assertNotEquals(fp("POST", "/p", null, "application/json", "{bad"), fp("POST", "/p", null, "application/json", "{bad "));
        assertNull(CanonicalJson.of("{\"a\":1,\"a\":2}".getBytes(StandardCharsets.UTF_8)), "duplicate keys are not canonical JSON");
        assertNull(CanonicalJson.of("{} {}".getBytes(StandardCharsets.UTF_8)));
    }

    @Test
    void theFingerprintIsHexSha256() {
        assertEquals(64, fp("POST", "/p", null, null, "").length());
    }
}
