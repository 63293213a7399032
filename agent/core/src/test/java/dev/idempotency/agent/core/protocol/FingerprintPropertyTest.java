package dev.idempotency.agent.core.protocol;

import org.junit.jupiter.api.RepeatedTest;
import org.junit.jupiter.api.RepetitionInfo;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonGenerator;
import com.fasterxml.jackson.core.JsonParser;

import java.io.ByteArrayOutputStream;
import java.nio.ByteBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Random requests, seeded per repetition (a failure names its seed): spelling the same request differently never
 * changes its fingerprint; changing any field, the order of a field's values, a file byte, a part header byte or a path
 * segment always does; JSON that is not strict UTF-8 never takes the fingerprint of a valid document it reads as.
 */
class FingerprintPropertyTest {
    private static final String FORM = "application/x-www-form-urlencoded";
    private static final String ALPHABET = "abcXYZ019 _-.~é€&=+%/";

    /** A form: names in order of first appearance, each with its values in order. */
    private static Map<String, List<String>> randomForm(Random r) {
        Map<String, List<String>> form = new LinkedHashMap<>();
        int names = 1 + r.nextInt(4);
        for (int i = 0; i < names; i++) {
            List<String> values = new ArrayList<>();
            int count = 1 + r.nextInt(3);
            for (int v = 0; v < count; v++) values.add(randomText(r, 0, 6));
            form.put("n" + i + randomText(r, 0, 3), values);
        }
        return form;
    }

    private static String randomText(Random r, int min, int max) {
        StringBuilder s = new StringBuilder();
        int n = min + r.nextInt(max - min + 1);
        for (int i = 0; i < n; i++) s.append(ALPHABET.charAt(r.nextInt(ALPHABET.length())));
        return s.toString();
    }

    /** Encodes with a random but valid spelling: upper or lower hex, + or %20, unreserved characters escaped or not. */
    private static String encode(String text, Random r) {
        StringBuilder out = new StringBuilder();
        for (byte b : text.getBytes(StandardCharsets.UTF_8)) {
            char c = (char) (b & 0xff);
            boolean unreserved = c < 0x80 && (Character.isLetterOrDigit(c) || "-_.~".indexOf(c) >= 0);
            if (c == ' ' && r.nextBoolean()) out.append('+');
            else if (unreserved && r.nextBoolean()) out.append(c);
            else out.append(String.format(r.nextBoolean() ? "%%%02X" : "%%%02x", b & 0xff));
        }
        return out.toString();
    }

    /** The form's pairs, with names interleaved randomly but each name's values in their order. */
    private static String spell(Map<String, List<String>> form, Random r) {
        List<String[]> queue = new ArrayList<>();
        Map<String, Integer> next = new LinkedHashMap<>();
        for (String name : form.keySet()) next.put(name, 0);
        int total = form.values().stream().mapToInt(List::size).sum();
        while (queue.size() < total) {
            List<String> open = new ArrayList<>();
            for (Map.Entry<String, Integer> e : next.entrySet()) if (e.getValue() < form.get(e.getKey()).size()) open.add(e.getKey());
            String name = open.get(r.nextInt(open.size()));
            queue.add(new String[] {name, form.get(name).get(next.get(name))});
            next.put(name, next.get(name) + 1);
        }
        StringBuilder s = new StringBuilder();
        for (String[] pair : queue) {
            if (s.length() > 0) s.append(r.nextInt(8) == 0 ? "&&" : "&");
            s.append(encode(pair[0], r)).append('=').append(encode(pair[1], r));
        }
        return s.toString();
    }

    private static String fingerprint(String path, String query, String body) {
        return RequestFingerprint.of("POST", path, query, FORM, body.getBytes(StandardCharsets.US_ASCII));
    }

    @RepeatedTest(300)
    void formsAndQueries(RepetitionInfo repetition) {
        long seed = 0x5eed0000L + repetition.getCurrentRepetition();
        Random r = new Random(seed);
        Map<String, List<String>> body = randomForm(r);
        Map<String, List<String>> query = randomForm(r);
        String path = "/shop/" + encode(randomText(r, 1, 5).replace("/", "s").replace("%", "p").replace(".", "d").replace(" ", "w").replace("+", "q"), r);
        String original = fingerprint(RequestPath.normalise(path), spell(query, r), spell(body, r));

        assertEquals(original, fingerprint(RequestPath.normalise(path + ";jsessionid=" + r.nextInt()), spell(query, r), spell(body, r)),
                "seed " + seed + ": the same request spelled differently");

        Map<String, List<String>> changed = copy(body);
        String name = pick(changed, r);
        List<String> values = changed.get(name);
        int i = r.nextInt(values.size());
        values.set(i, values.get(i) + "x");
        assertNotEquals(original, fingerprint(RequestPath.normalise(path), spell(query, r), spell(changed, r)), "seed " + seed + ": a changed value");

        Map<String, List<String>> renamed = copy(body);
        String old = pick(renamed, r);
        renamed.put(old + "y", renamed.remove(old));
        assertNotEquals(original, fingerprint(RequestPath.normalise(path), spell(query, r), spell(renamed, r)), "seed " + seed + ": a renamed field");

        Map<String, List<String>> reordered = copy(body);
        reordered.put("multi", new ArrayList<>(List.of("first", "second")));
        Map<String, List<String>> swapped = copy(reordered);
        Collections.reverse(swapped.get("multi"));
        assertNotEquals(fingerprint("/p", null, spell(reordered, r)), fingerprint("/p", null, spell(swapped, r)), "seed " + seed + ": value order");

        Map<String, List<String>> queryChanged = copy(query);
        queryChanged.get(pick(queryChanged, r)).add("extra");
        assertNotEquals(original, fingerprint(RequestPath.normalise(path), spell(queryChanged, r), spell(body, r)), "seed " + seed + ": a query value");

        assertNotEquals(original, fingerprint(RequestPath.normalise(path + "/more"), spell(query, r), spell(body, r)), "seed " + seed + ": a path segment");
    }

    @RepeatedTest(100)
    void multipartFiles(RepetitionInfo repetition) {
        long seed = 0xf11eL + repetition.getCurrentRepetition();
        Random r = new Random(seed);
        byte[] file = new byte[1 + r.nextInt(2000)];
        r.nextBytes(file);
        String type = "multipart/form-data; boundary=B" + r.nextInt(1_000_000);
        String original = RequestFingerprint.of("POST", "/u", null, type, multipart(type, file));
        String otherBoundary = "multipart/form-data; boundary=other" + r.nextInt(1_000_000);
        assertEquals(original, RequestFingerprint.of("POST", "/u", null, otherBoundary, multipart(otherBoundary, file)), "seed " + seed);
        byte[] changed = file.clone();
        int at = r.nextInt(changed.length);
        changed[at] ^= (byte) (1 + r.nextInt(255));
        assertNotEquals(original, RequestFingerprint.of("POST", "/u", null, type, multipart(type, changed)), "seed " + seed + ": byte " + at);
    }

    private static byte[] multipart(String type, byte[] file) {
        String boundary = MediaType.parameter(type, "boundary");
        byte[] head = ("--" + boundary + "\r\nContent-Disposition: form-data; name=\"file\"; filename=\"f.bin\"\r\n"
                + "Content-Type: application/octet-stream\r\n\r\n").getBytes(StandardCharsets.ISO_8859_1);
        byte[] tail = ("\r\n--" + boundary + "--\r\n").getBytes(StandardCharsets.ISO_8859_1);
        byte[] body = new byte[head.length + file.length + tail.length];
        System.arraycopy(head, 0, body, 0, head.length);
        System.arraycopy(file, 0, body, head.length, file.length);
        System.arraycopy(tail, 0, body, head.length + file.length, tail.length);
        return body;
    }

    private static Map<String, List<String>> copy(Map<String, List<String>> form) {
        Map<String, List<String>> copy = new LinkedHashMap<>();
        for (Map.Entry<String, List<String>> e : form.entrySet()) copy.put(e.getKey(), new ArrayList<>(e.getValue()));
        return copy;
    }

    private static String pick(Map<String, List<String>> form, Random r) {
        List<String> names = new ArrayList<>(form.keySet());
        return names.get(r.nextInt(names.size()));
    }

    private static final int[] INTERESTING = {0x00, 0x2f, 0x41, 0x7f, 0x80, 0x8f, 0x90, 0x9f, 0xa0, 0xaf, 0xbf, 0xc0, 0xc1, 0xc2, 0xdf,
            0xe0, 0xe1, 0xec, 0xed, 0xee, 0xef, 0xf0, 0xf1, 0xf3, 0xf4, 0xf5, 0xf8, 0xfe, 0xff};

    /** The JDK's UTF-8 decoder is strict (Table 3-7): the validator agrees with it on every short byte sequence. */
    @RepeatedTest(20)
    void utf8ValidatorAgreesWithTheJdk(RepetitionInfo repetition) {
        Random r = new Random(0x757466L + repetition.getCurrentRepetition());
        for (int i = 0; i < 5000; i++) {
            byte[] bytes = new byte[r.nextInt(9)];
            for (int k = 0; k < bytes.length; k++) bytes[k] = (byte) (r.nextInt(4) == 0 ? r.nextInt(256) : INTERESTING[r.nextInt(INTERESTING.length)]);
            assertEquals(jdkValid(bytes), Utf8.isValid(bytes), () -> java.util.Arrays.toString(bytes));
        }
    }

    private static boolean jdkValid(byte[] bytes) {
        try {
            StandardCharsets.UTF_8.newDecoder().onMalformedInput(CodingErrorAction.REPORT)
                    .onUnmappableCharacter(CodingErrorAction.REPORT).decode(ByteBuffer.wrap(bytes));
            return true;
        } catch (CharacterCodingException e) {
            return false;
        }
    }

    private static final int[] CODE_POINTS = {'a', 'Z', '/', '0', ' ', 0xe9, 0x3b1, 0x7ff, 0x800, 0x20ac, 0xfffd, 0xffff, 0x10000, 0x1f600, 0x10ffff};

    /**
     * A valid document whose UTF-8 is spoiled in one place (an overlong form, an encoded surrogate, a code point beyond
     * U+10FFFF, a truncated sequence, a stray byte) is fingerprinted as its raw bytes, never as any valid document
     * Jackson or a lenient decoder reads it as.
     */
    @RepeatedTest(300)
    void invalidUtf8NeverCollidesWithAValidDocument(RepetitionInfo repetition) throws Exception {
        long seed = 0x1a7e0000L + repetition.getCurrentRepetition();
        Random r = new Random(seed);
        StringBuilder json = new StringBuilder("{");
        int fields = 1 + r.nextInt(3);
        for (int f = 0; f < fields; f++) {
            json.append(f == 0 ? "" : ",").append("\"k").append(f).append(randomText(r, 0, 2).replace("\"", "").replace("\\", "")).append("\":");
            json.append('"');
            for (int c = 1 + r.nextInt(6); c > 0; c--) json.appendCodePoint(CODE_POINTS[r.nextInt(CODE_POINTS.length)]);
            json.append("\"");
        }
        String text = json.append('}').toString();
        byte[] valid = text.getBytes(StandardCharsets.UTF_8);
        byte[] spoiled = spoil(text, r);
        String kind = "seed " + seed;
        if (jdkValid(spoiled)) return; // a stray byte that happened to make valid UTF-8
        String fingerprint = RequestFingerprint.of("POST", "/p", null, "application/json", spoiled);
        assertEquals(ExpectedFingerprint.of("raw;application/json", spoiled), fingerprint, kind);
        assertNotEquals(RequestFingerprint.of("POST", "/p", null, "application/json", valid), fingerprint, kind);
        byte[] lenient = new String(spoiled, StandardCharsets.UTF_8).getBytes(StandardCharsets.UTF_8);
        assertNotEquals(RequestFingerprint.of("POST", "/p", null, "application/json", lenient), fingerprint, kind + ": U+FFFD reading");
        byte[] jackson = asJacksonReadsIt(spoiled);
        if (jackson != null && jdkValid(jackson)) {
            assertNotEquals(RequestFingerprint.of("POST", "/p", null, "application/json", jackson), fingerprint, kind + ": Jackson's reading");
        }
    }

    /** The text as UTF-8 with one code point (inside a string, past the first field's opening) badly encoded. */
    private static byte[] spoil(String text, Random r) {
        int[] points = text.codePoints().toArray();
        int at = text.lastIndexOf(':') + 2 + r.nextInt(Math.max(1, points.length - text.lastIndexOf(':') - 3));
        at = Math.min(at, points.length - 3);
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        for (int i = 0; i < points.length; i++) {
            int cp = points[i];
            if (i != at) {
                out.writeBytes(new String(Character.toChars(cp)).getBytes(StandardCharsets.UTF_8));
                continue;
            }
            switch (r.nextInt(5)) {
                case 0: // overlong: one more byte than needed (a 4-byte form for anything below U+10000)
                    if (cp < 0x80) writeBytes(out, 0xc0 | cp >> 6, 0x80 | cp & 0x3f);
                    else if (cp < 0x800) writeBytes(out, 0xe0, 0x80 | cp >> 6, 0x80 | cp & 0x3f);
                    else writeBytes(out, 0xf0, 0x80 | cp >> 12, 0x80 | cp >> 6 & 0x3f, 0x80 | cp & 0x3f);
                    break;
                case 1: // CESU-8 surrogates, or a lone one
                    for (char c : Character.toChars(cp >= 0x10000 ? cp : 0xd800 + (cp & 0x3ff))) {
                        writeBytes(out, 0xe0 | c >> 12, 0x80 | c >> 6 & 0x3f, 0x80 | c & 0x3f);
                    }
                    break;
                case 2: // beyond U+10FFFF
                    int big = 0x110000 + cp;
                    writeBytes(out, 0xf0 | big >> 18 & 0x7, 0x80 | big >> 12 & 0x3f, 0x80 | big >> 6 & 0x3f, 0x80 | big & 0x3f);
                    break;
                case 3: // a truncated sequence
                    writeBytes(out, 0xe2, 0x82);
                    break;
                default: // a stray byte
                    writeBytes(out, INTERESTING[r.nextInt(INTERESTING.length)]);
            }
        }
        return out.toByteArray();
    }

    private static void writeBytes(ByteArrayOutputStream out, int... bytes) {
        for (int b : bytes) out.write(b);
    }

    /** What Jackson's lenient decoder reads, written back as UTF-8; null when it does not read it at all. */
    private static byte[] asJacksonReadsIt(byte[] body) {
        JsonFactory factory = new JsonFactory();
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        try (JsonParser p = factory.createParser(body); JsonGenerator g = factory.createGenerator(out)) {
            p.nextToken();
            g.copyCurrentStructure(p);
        } catch (Exception e) {
            return null;
        }
        return out.toByteArray();
    }

    /**
     * Random multipart bodies with random part headers (bytes beyond ASCII included): the same parts under another
     * boundary, or with header names in another case, are the same request; one header byte changed is another.
     */
    @RepeatedTest(300)
    void multipartPartHeaders(RepetitionInfo repetition) {
        long seed = 0x4ead0000L + repetition.getCurrentRepetition();
        Random r = new Random(seed);
        List<List<byte[][]>> parts = new ArrayList<>();
        for (int p = 1 + r.nextInt(3); p > 0; p--) {
            List<byte[][]> headers = new ArrayList<>();
            headers.add(header("Content-Disposition", concat("form-data; name=\"".getBytes(StandardCharsets.ISO_8859_1), randomBytes(r, 1, 6), "\"".getBytes(StandardCharsets.ISO_8859_1))));
            for (int h = r.nextInt(3); h > 0; h--) headers.add(header("X-H" + r.nextInt(100), randomBytes(r, 1, 10)));
            Collections.shuffle(headers, r);
            parts.add(headers);
        }
        String type = "multipart/form-data; boundary=B" + r.nextInt(1_000_000);
        String other = "multipart/form-data; boundary=other" + r.nextInt(1_000_000);
        String original = RequestFingerprint.of("POST", "/u", null, type, multipart(type, parts, false));
        assertEquals(original, RequestFingerprint.of("POST", "/u", null, other, multipart(other, parts, false)), "seed " + seed + ": boundary");
        assertEquals(original, RequestFingerprint.of("POST", "/u", null, type, multipart(type, parts, true)), "seed " + seed + ": name case");

        List<byte[][]> headers = parts.get(r.nextInt(parts.size()));
        byte[][] header = headers.get(r.nextInt(headers.size()));
        boolean inName = r.nextInt(3) == 0;
        byte[] target = inName ? header[0] : header[1];
        int at = r.nextInt(target.length);
        byte old = target[at];
        byte replacement;
        do {
            replacement = inName ? (byte) "abcdefghijklmnopqrstuvwxyz0123456789-".charAt(r.nextInt(37)) : randomBytes(r, 1, 1)[0];
        } while (Character.toLowerCase((char) replacement) == Character.toLowerCase((char) old));
        target[at] = replacement;
        assertNotEquals(original, RequestFingerprint.of("POST", "/u", null, type, multipart(type, parts, false)),
                "seed " + seed + ": byte " + at + " of a header " + (inName ? "name" : "value"));
    }

    /** Bytes a header value may hold anywhere (no CR, LF, quote, backslash; no space or tab, which are trimmed). */
    private static byte[] randomBytes(Random r, int min, int max) {
        byte[] bytes = new byte[min + r.nextInt(max - min + 1)];
        for (int i = 0; i < bytes.length; i++) {
            int b;
            do b = 0x21 + r.nextInt(0xff - 0x21 + 1); while (b == '"' || b == '\\' || b == 0x7f);
            bytes[i] = (byte) b;
        }
        return bytes;
    }

    private static byte[][] header(String name, byte[] value) {
        return new byte[][] {name.getBytes(StandardCharsets.US_ASCII), value};
    }

    private static byte[] multipart(String type, List<List<byte[][]>> parts, boolean upperCaseNames) {
        String boundary = MediaType.parameter(type, "boundary");
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        for (List<byte[][]> headers : parts) {
            out.writeBytes(("--" + boundary + "\r\n").getBytes(StandardCharsets.ISO_8859_1));
            for (byte[][] h : headers) {
                String name = new String(h[0], StandardCharsets.ISO_8859_1);
                out.writeBytes((upperCaseNames ? name.toUpperCase(java.util.Locale.ROOT) : name).getBytes(StandardCharsets.ISO_8859_1));
                out.writeBytes(": ".getBytes(StandardCharsets.ISO_8859_1));
                out.writeBytes(h[1]);
                out.writeBytes("\r\n".getBytes(StandardCharsets.ISO_8859_1));
            }
            out.writeBytes("\r\ncontent\r\n".getBytes(StandardCharsets.ISO_8859_1));
        }
        out.writeBytes(("--" + boundary + "--\r\n").getBytes(StandardCharsets.ISO_8859_1));
        return out.toByteArray();
    }

    private static byte[] concat(byte[]... arrays) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        for (byte[] a : arrays) out.writeBytes(a);
        return out.toByteArray();
    }
}
