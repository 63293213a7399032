package dev.idempotency.agent.core.protocol;

import org.junit.jupiter.api.Test;

import java.io.ByteArrayOutputStream;
import java.nio.charset.Charset;
import java.nio.charset.StandardCharsets;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** Issue 27, section 2: JSON is canonicalised only as strict UTF-8; anything else is the bytes as sent. */
class Utf8JsonFingerprintTest {
    private static final String JSON = "application/json";

    private static String fp(String type, byte[] body) {
        return RequestFingerprint.of("POST", "/p", null, type, body);
    }

    private static byte[] bytes(int... values) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        for (int v : values) out.write(v);
        return out.toByteArray();
    }

    /** {"s":"X"} with X the given bytes. */
    private static byte[] document(byte[] value) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        out.write('{');
        out.writeBytes("\"s\":\"".getBytes(StandardCharsets.US_ASCII));
        out.writeBytes(value);
        out.writeBytes("\"}".getBytes(StandardCharsets.US_ASCII));
        return out.toByteArray();
    }

    private static void assertRawAndNotTheValidDocument(byte[] invalid, String lookAlike) {
        byte[] body = document(invalid);
        assertEquals(ExpectedFingerprint.of("raw;application/json", body), fp(JSON, body), "bytes as sent");
        assertNotEquals(fp(JSON, document(lookAlike.getBytes(StandardCharsets.UTF_8))), fp(JSON, body), lookAlike);
    }

    @Test
    void overlongFormsAreNotTheCharacterTheyLookLike() {
        assertRawAndNotTheValidDocument(bytes(0xc0, 0xaf), "/");
        assertRawAndNotTheValidDocument(bytes(0xe0, 0x80, 0xaf), "/");
        assertRawAndNotTheValidDocument(bytes(0xc1, 0xa1), "a");
        assertRawAndNotTheValidDocument(bytes(0xf0, 0x82, 0x82, 0xac), "\u20ac");
    }

    @Test
    void surrogatesAndCodePointsBeyondUnicodeAreRawBytes() {
        // CESU-8: U+1F600 as two encoded surrogates
        assertRawAndNotTheValidDocument(bytes(0xed, 0xa0, 0xbd, 0xed, 0xb8, 0x80), "\ud83d\ude00");
        assertRawAndNotTheValidDocument(bytes(0xed, 0xa0, 0x80), "\ufffd");
        assertRawAndNotTheValidDocument(bytes(0xf4, 0x90, 0x80, 0x80), "\ufffd");
        assertRawAndNotTheValidDocument(bytes(0xe2, 0x82), "\ufffd");
        assertRawAndNotTheValidDocument(bytes(0xff), "\ufffd");
    }

    @Test
    void validUtf8KeepsItsCanonicalForm() {
        byte[] body = "{ \"s\" : \"\u20ac\ud83d\ude00/\", \"n\": [100, 0.000001, 1e-7, -0.0, 12.50, 1234.5e3] }".getBytes(StandardCharsets.UTF_8);
        // as before: numbers as BigDecimal.toString wrote them, characters beyond U+FFFF as Jackson escapes them
        assertEquals(ExpectedFingerprint.json("{\"n\":[1E+2,0.000001,1E-7,0,12.5,1.2345E+6],\"s\":\"\u20ac\\uD83D\\uDE00/\"}"), fp(JSON, body));
        assertEquals(fp(JSON, body), fp(JSON + "; charset=UTF-8", body));
    }

    /** An ASCII document's UTF-16 and UTF-32 copies are valid UTF-8 bytes too (NULs): Jackson would still read them. */
    @Test
    void aByteOrderMarkOrUtf16OrUtf32IsAnotherRequest() {
        for (String text : new String[] {"{\"a\":\"\u00e9\"}", "{\"a\":1}", "[1]", "1"}) {
            String utf8 = fp(JSON, text.getBytes(StandardCharsets.UTF_8));
            ByteArrayOutputStream bom = new ByteArrayOutputStream();
            bom.writeBytes(bytes(0xef, 0xbb, 0xbf));
            bom.writeBytes(text.getBytes(StandardCharsets.UTF_8));
            for (byte[] copy : new byte[][] {bom.toByteArray(), text.getBytes(StandardCharsets.UTF_16LE), text.getBytes(StandardCharsets.UTF_16BE),
                    text.getBytes(StandardCharsets.UTF_16), text.getBytes(Charset.forName("UTF-32BE")), text.getBytes(Charset.forName("UTF-32LE"))}) {
                assertEquals(ExpectedFingerprint.of("raw;application/json", copy), fp(JSON, copy), text);
                assertNotEquals(utf8, fp(JSON, copy), text);
            }
        }
    }

    @Test
    void anotherCharsetIsRawBytesWithItsName() {
        byte[] body = "{\"a\":\"caf\u00e9\"}".getBytes(StandardCharsets.ISO_8859_1);
        assertEquals(ExpectedFingerprint.of("raw;application/json;charset=iso-8859-1", body), fp(JSON + "; charset=ISO-8859-1", body));
        byte[] ascii = "{\"a\":1}".getBytes(StandardCharsets.US_ASCII);
        assertNotEquals(fp(JSON, ascii), fp(JSON + "; charset=UTF-16", ascii), "getReader() would read other characters");
    }

    private static byte[] ascii(String text) {
        return text.getBytes(StandardCharsets.US_ASCII);
    }

    /** The limits docs/guarantees.md states: beyond them, the bytes as sent, so a whitespace-only retry is another request. */
    @Test
    void deepNestingLongNumbersAndLongNamesFallBackToRawBytes() {
        assertNotNull(CanonicalJson.of(ascii("[".repeat(1000) + "]".repeat(1000))), "1000 levels");
        byte[] deep = ascii("[".repeat(1001) + "]".repeat(1001));
        assertEquals(ExpectedFingerprint.of("raw;application/json", deep), fp(JSON, deep));
        assertNotEquals(fp(JSON, deep), fp(JSON, ascii(" " + new String(deep, StandardCharsets.US_ASCII))), "whitespace counts");

        assertNotNull(CanonicalJson.of(ascii("[1" + "0".repeat(999) + "]")), "1000 characters");
        byte[] longNumber = ascii("[1" + "0".repeat(1000) + "]");
        assertEquals(ExpectedFingerprint.of("raw;application/json", longNumber), fp(JSON, longNumber));

        assertNotNull(CanonicalJson.of(ascii("{\"" + "n".repeat(50_000) + "\":1}")), "a name of 50 000");
        byte[] longName = ascii("{\"" + "n".repeat(50_001) + "\":1}");
        assertEquals(ExpectedFingerprint.of("raw;application/json", longName), fp(JSON, longName));
    }

    @Test
    void exponentsBigDecimalRefusesStayRawBytes() {
        for (String number : new String[] {"1e9999999999", "1e2147483648", "0.5e-2147483648", "100e2147483647", "0e99999999999"}) {
            byte[] body = ("[" + number + "]").getBytes(StandardCharsets.US_ASCII);
            assertEquals(ExpectedFingerprint.of("raw;application/json", body), fp(JSON, body), number);
        }
        assertEquals(ExpectedFingerprint.json("[1E+2147483647]"), fp(JSON, "[10e2147483646]".getBytes(StandardCharsets.US_ASCII)));
    }
}
