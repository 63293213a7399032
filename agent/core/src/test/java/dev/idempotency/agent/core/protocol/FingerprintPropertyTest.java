package dev.idempotency.agent.core.protocol;

import org.junit.jupiter.api.RepeatedTest;
import org.junit.jupiter.api.RepetitionInfo;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;

/**
 * Random requests, seeded per repetition (a failure names its seed): spelling the same request differently never
 * changes its fingerprint; changing any field, the order of a field's values, a file byte or a path segment always does.
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
}
