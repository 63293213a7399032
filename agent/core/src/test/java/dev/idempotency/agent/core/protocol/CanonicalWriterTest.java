package dev.idempotency.agent.core.protocol;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonParser;
import org.junit.jupiter.api.RepeatedTest;
import org.junit.jupiter.api.RepetitionInfo;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.Random;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;

/**
 * The canonical writer against Jackson's generator, which wrote every fingerprint stored before it: the same bytes for
 * every character and every shape, and the generator's own for what the writer leaves to it (surrogates).
 */
class CanonicalWriterTest {
    private static final JsonFactory JSON = new JsonFactory();

    private static Object tree(String json) throws IOException {
        try (JsonParser p = JSON.createParser(json)) {
            p.nextToken();
            return CanonicalJson.read(p);
        }
    }

    private static void assertSameAsGenerator(String json) throws IOException {
        Object tree = tree(json);
        byte[] written = CanonicalWriter.write(tree, 4);
        assertNotNull(written, json);
        assertArrayEquals(CanonicalJson.generated(tree, 4), written, json);
    }

    private static String quoted(char c) {
        return String.format("\"\\u%04x\"", (int) c);
    }

    @Test
    void everyCharacterOutsideTheSurrogatesAsNameAndAsValue() throws IOException {
        for (int c = 0; c <= 0xffff; c++) {
            if (Character.isSurrogate((char) c)) continue;
            String s = quoted((char) c);
            assertSameAsGenerator("{" + s + ":" + s + ",\"k" + s.substring(1) + ":[" + s + "," + s + "]}");
        }
    }

    @Test
    void surrogatesAreLeftToTheGenerator() throws IOException {
        for (String json : new String[] {"\"\\ud83d\\ude00\"", "{\"\\ud83d\\ude00\":1}", "[\"a\\udc00\"]"}) {
            assertNull(CanonicalWriter.write(tree(json), 4), json);
        }
        byte[] body = "{\"s\":\"\ud83d\ude00\"}".getBytes(StandardCharsets.UTF_8);
        assertArrayEquals(CanonicalJson.generated(tree(new String(body, StandardCharsets.UTF_8)), 4), CanonicalJson.of(body));
    }

    @Test
    void scalarsAndEmptyContainers() throws IOException {
        for (String json : new String[] {"true", "false", "null", "0", "-1.5e300", "\"\"", "{}", "[]", "[[],{},[{}]]",
                "{\"b\":null,\"a\":[true,false,{\"z\":1,\"y\":-0.0}]}"}) {
            assertSameAsGenerator(json);
        }
    }

    /** Random documents, seeded per repetition (a failure names its seed). */
    @RepeatedTest(300)
    void randomDocuments(RepetitionInfo repetition) throws IOException {
        long seed = 0x5eed0000L + repetition.getCurrentRepetition();
        Random r = new Random(seed);
        StringBuilder json = new StringBuilder();
        randomValue(r, json, 0);
        assertSameAsGenerator(json.toString());
    }

    private static void randomValue(Random r, StringBuilder out, int depth) {
        switch (depth > 4 ? 2 + r.nextInt(5) : r.nextInt(7)) {
            case 0:
                out.append('{');
                for (int i = 0, n = r.nextInt(5); i < n; i++) {
                    if (i > 0) out.append(',');
                    randomString(r, out);
                    out.append(':');
                    randomValue(r, out, depth + 1);
                }
                out.append('}');
                return;
            case 1:
                out.append('[');
                for (int i = 0, n = r.nextInt(5); i < n; i++) {
                    if (i > 0) out.append(',');
                    randomValue(r, out, depth + 1);
                }
                out.append(']');
                return;
            case 2: randomString(r, out); return;
            case 3: out.append(r.nextInt(3) == 0 ? r.nextGaussian() * 1e6 : r.nextInt()); return;
            case 4: out.append(r.nextBoolean()); return;
            case 5: out.append("null"); return;
            default: out.append(r.nextLong()).append("e").append(r.nextInt(40) - 20);
        }
    }

    /** Names are made unique by a serial-like suffix, as a duplicate name makes the document not canonicalisable. */
    private static int serial;

    private static void randomString(Random r, StringBuilder out) {
        out.append('"');
        for (int i = 0, n = r.nextInt(12); i < n; i++) {
            char c;
            do {
                int kind = r.nextInt(4);
                c = (char) (kind == 0 ? r.nextInt(0x80) : kind == 1 ? 0x80 + r.nextInt(0x780) : kind == 2 ? r.nextInt(0x10000) : 'a' + r.nextInt(26));
            } while (Character.isSurrogate(c));
            out.append(String.format("\\u%04x", (int) c));
        }
        out.append('#').append(serial++).append('"');
    }
}
