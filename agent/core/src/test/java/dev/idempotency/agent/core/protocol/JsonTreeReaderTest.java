package dev.idempotency.agent.core.protocol;

import org.junit.jupiter.api.RepeatedTest;
import org.junit.jupiter.api.RepetitionInfo;
import org.junit.jupiter.api.Test;

import java.nio.charset.StandardCharsets;
import java.util.Random;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The reader that spares a keyed request Jackson's parser must never change a fingerprint: every body it reads gives
 * the canonical form Jackson's parser gives (the fingerprints stored before were made that way), and every body it
 * leaves undecided goes to Jackson. Held to Jackson on random documents and on random damage done to them.
 */
class JsonTreeReaderTest {
    /** What a body fingerprints as today, and what it did before this reader: Jackson's parser alone. */
    private static void assertSameAsJackson(String text) {
        assertSameAsJackson(text.getBytes(StandardCharsets.UTF_8));
    }

    private static void assertSameAsJackson(byte[] body) {
        String text = new String(body, StandardCharsets.ISO_8859_1); // every byte shown
        byte[] expected = CanonicalJson.isPlainUtf8(body) ? CanonicalJson.viaJackson(body) : null;
        byte[] actual = CanonicalJson.of(body);
        assertArrayEquals(expected, actual, () -> "canonical form of " + text + ": Jackson "
                + (expected == null ? null : new String(expected, StandardCharsets.UTF_8)) + ", now "
                + (actual == null ? null : new String(actual, StandardCharsets.UTF_8)));
    }

    private static boolean decided(String text) {
        return JsonTreeReader.read(text.getBytes(StandardCharsets.UTF_8)) != JsonTreeReader.UNDECIDED;
    }

    @Test
    void aPlainBodyIsReadHereByValueWithSortedKeys() {
        String body = "{\"currency\" : \"EUR\",\n\t\"amount\":1250}";
        assertTrue(decided(body));
        // 1250 by value is BigDecimal's 1.25E+3
        assertEquals("{\"amount\":1.25E+3,\"currency\":\"EUR\"}",
                new String(CanonicalJson.of(body.getBytes(StandardCharsets.UTF_8)), StandardCharsets.UTF_8));
        assertSameAsJackson(body);
    }

    @Test
    void whatJacksonRefusesOrReadsOnlyWithinItsOwnLimitsIsLeftToIt() {
        String deep = "[".repeat(65) + "]".repeat(65);
        String[] left = {"", " ", "01", "-", "1.", ".5", "+1", "1e", "1x", "[1,]", "{\"a\":1,}", "{\"a\" 1}", "tru", "truex",
            "nul", "\"\\x\"", "\"a\u0001\"", "\"open", "{\"a\":1,\"a\":2}", "NaN", "[1 2]", "{} {}", "{'a':1}", deep,
            "1" + "0".repeat(100), "{\"" + "k".repeat(1001) + "\":1}", "\"\\u12\"", "\"\\u12G4\"", "[\u000b1]"};
        for (String body : left) {
            assertSame(JsonTreeReader.UNDECIDED, JsonTreeReader.read(body.getBytes(StandardCharsets.UTF_8)), body);
            assertSameAsJackson(body);
        }
        assertNull(CanonicalJson.of("{\"a\":1,\"a\":2}".getBytes(StandardCharsets.UTF_8)), "a duplicate name is refused");
        assertTrue(decided("[".repeat(64) + "]".repeat(64)));
        assertTrue(decided("-1" + "0".repeat(98)));
    }

    @Test
    void escapesAndEveryKindOfCharacterReadAsJacksonReadsThem() {
        String[] read = {"\"\\\"\\\\\\/\\b\\f\\n\\r\\t\"", "\"\\u00e9\\u20AC\\ud83d\\ude00\"", "\"\\ud800\"", "\"\\udc00x\"",
            "\"é€😀\u007f\"", "{\"é\":1,\"e\":2,\"😀\":3,\"\uffff\":4}", "[true,false,null,-0,0.0,1E400,-1.50e-7]",
            "{\"b\":{\"d\":[],\"c\":{}},\"a\":[{\"y\":1,\"x\":2}]}", "  \"root\"  ", "0", "\r\n[\t]\r\n"};
        for (String body : read) {
            assertTrue(decided(body), body);
            assertSameAsJackson(body);
        }
    }

    private static final String[] NUMBERS = {"0", "-0", "7", "-12", "1250", "3.14", "-0.000", "100.500", "1e3", "1E+3",
        "-2.5e-3", "0e0", "123456789012345678901234567890", "1e2147483647", "1e-2147483648", "9.9E999999999"};
    private static final String[] TEXTS = {"", "a", "EUR", "é", "€", "😀", "\\n", "\\\"", "\\u0041", "\\ud834\\udd1e", "tab\\t",
        "a b", "/", "\\/", "\u007f", "ñandú"};
    private static final String SPACE = " \t\n\r";

    private static void value(StringBuilder out, Random r, int depth) {
        int kind = depth > 4 ? r.nextInt(4) : r.nextInt(6);
        switch (kind) {
            case 0: out.append(NUMBERS[r.nextInt(NUMBERS.length)]); break;
            case 1: out.append('"').append(TEXTS[r.nextInt(TEXTS.length)]).append('"'); break;
            case 2: out.append(r.nextBoolean() ? "true" : "false"); break;
            case 3: out.append("null"); break;
            case 4: {
                out.append('{');
                int n = r.nextInt(5);
                for (int i = 0; i < n; i++) {
                    if (i > 0) out.append(',');
                    space(out, r);
                    out.append('"').append(TEXTS[r.nextInt(TEXTS.length)]).append(r.nextInt(3)).append('"');
                    space(out, r);
                    out.append(':');
                    space(out, r);
                    value(out, r, depth + 1);
                    space(out, r);
                }
                out.append('}');
                break;
            }
            default: {
                out.append('[');
                int n = r.nextInt(5);
                for (int i = 0; i < n; i++) {
                    if (i > 0) out.append(',');
                    space(out, r);
                    value(out, r, depth + 1);
                    space(out, r);
                }
                out.append(']');
            }
        }
    }

    private static void space(StringBuilder out, Random r) {
        if (r.nextInt(4) == 0) out.append(SPACE.charAt(r.nextInt(SPACE.length())));
    }

    /** One random change of the kind a client (or an attacker) makes: a byte dropped, added, swapped, or the end cut. */
    private static String damage(String text, Random r) {
        String alphabet = "{}[]\",:\\ 0123456789-+.eEtrufalsn\u0001\té😀x";
        int at = r.nextInt(text.length() + 1);
        switch (r.nextInt(4)) {
            case 0: return at < text.length() ? text.substring(0, at) + text.substring(Math.min(text.length(), at + 1)) : text + "x";
            case 1: return text.substring(0, at) + alphabet.charAt(r.nextInt(alphabet.length())) + text.substring(at);
            case 2: return at < text.length()
                    ? text.substring(0, at) + alphabet.charAt(r.nextInt(alphabet.length())) + text.substring(at + 1) : text;
            default: return text.substring(0, at);
        }
    }

    @RepeatedTest(20)
    void randomDocumentsAndRandomDamageGiveWhatJacksonGives(RepetitionInfo repetition) {
        Random r = new Random(7919L * repetition.getCurrentRepetition());
        int readHere = 0;
        int documents = 500;
        for (int i = 0; i < documents; i++) {
            StringBuilder doc = new StringBuilder();
            space(doc, r);
            value(doc, r, 0);
            space(doc, r);
            String text = doc.toString();
            if (decided(text)) readHere++;
            assertSameAsJackson(text);
            String damaged = text;
            for (int d = 0; d < 1 + r.nextInt(3); d++) {
                damaged = damage(damaged, r);
                assertSameAsJackson(damaged);
            }
        }
        // the reader must really serve the documents it is for (random keys may repeat: those go to Jackson)
        assertTrue(readHere > documents * 8 / 10, readHere + " of " + documents + " read here");
    }

    /** Bytes that are not strict UTF-8 where they stand, or begin a sequence that may not be: each refused as before. */
    private static final int[][] BAD_BYTES = {{0x80}, {0xbf}, {0xc0, 0xaf}, {0xc1, 0x81}, {0xc2}, {0xdf}, {0xe0, 0x80, 0x80},
        {0xed, 0xa0, 0x80}, {0xef, 0xbb, 0xbf}, {0xf0, 0x80, 0x80, 0x80}, {0xf4, 0x90, 0x80, 0x80}, {0xf5}, {0xff}, {0x00},
        {0xc3, 0xa9}, {0xe2, 0x82, 0xac}, {0xf0, 0x9f, 0x98, 0x80}, {0xe2, 0x82}, {0xf0, 0x9f, 0x98}};

    @RepeatedTest(10)
    void bytesThatAreNotStrictUtf8AreRefusedAsBefore(RepetitionInfo repetition) {
        Random r = new Random(104729L * repetition.getCurrentRepetition());
        for (int i = 0; i < 500; i++) {
            StringBuilder doc = new StringBuilder();
            value(doc, r, 0);
            byte[] body = doc.toString().getBytes(StandardCharsets.UTF_8);
            int[] bad = BAD_BYTES[r.nextInt(BAD_BYTES.length)];
            int at = r.nextInt(body.length + 1);
            byte[] damaged = new byte[body.length + bad.length];
            System.arraycopy(body, 0, damaged, 0, at);
            for (int k = 0; k < bad.length; k++) damaged[at + k] = (byte) bad[k];
            System.arraycopy(body, at, damaged, at + bad.length, body.length - at);
            assertSameAsJackson(damaged);
        }
        byte[] lone = {'"', (byte) 0xed, (byte) 0xa0, (byte) 0x80, '"'}; // an encoded surrogate: refused, not read
        assertSame(JsonTreeReader.UNDECIDED, JsonTreeReader.read(lone));
        assertNull(CanonicalJson.of(lone));
    }
}
