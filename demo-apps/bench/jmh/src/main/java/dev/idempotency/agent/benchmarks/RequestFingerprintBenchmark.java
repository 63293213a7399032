package dev.idempotency.agent.benchmarks;

import dev.idempotency.agent.core.protocol.RequestFingerprint;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Random;
import java.util.concurrent.TimeUnit;
import java.util.function.IntFunction;

/**
 * The request fingerprint of a keyed POST: a JSON body canonicalised (parsed, keys sorted, numbers by value) and
 * hashed, against the same bytes hashed raw (what any non-JSON, non-form body costs), at 1 KiB and at 1 MiB, the
 * default largest keyed body. Shapes: a plain order, and the shapes a client could choose to make canonicalisation
 * expensive (long numbers, deep nesting, many keys, long strings, long keys, many small values); each must cost at most about 3x the
 * plain order of the same size.
 */
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MICROSECONDS)
@State(Scope.Benchmark)
public class RequestFingerprintBenchmark {
    @Param({"1024", "1048576"})
    public int bodyBytes;

    @Param({"order", "longNumbers", "deepNesting", "manyKeys", "sharedPrefixKeys", "longStrings", "longKeys", "smallNumbers",
            "emptyContainers"})
    public String shape;

    private byte[] body;
    private String path = "/shop/payments";

    @Setup
    public void setUp() {
        body = body(shape, bodyBytes);
        if (RequestFingerprint.of("POST", path, null, "application/json", body)
                .equals(RequestFingerprint.of("POST", path, null, "application/octet-stream", body))) {
            throw new IllegalStateException("the JSON body was not canonicalised");
        }
    }

    @Benchmark
    public String canonicalJson() {
        return RequestFingerprint.of("POST", path, null, "application/json", body);
    }

    @Benchmark
    public String rawBytes() {
        return RequestFingerprint.of("POST", path, null, "application/octet-stream", body);
    }

    static byte[] body(String shape, int size) {
        switch (shape) {
            case "order": return orderJson(size);
            case "longNumbers": return array(size, i -> longNumber(i));
            case "deepNesting": return array(size, i -> nested(Math.min(998, (size - 8) / 2 - 1)));
            case "manyKeys": return manyKeys(size, "k");
            case "sharedPrefixKeys": return manyKeys(size, "kkkkkkkk");
            case "smallNumbers": return array(size, i -> i % 2 == 0 ? "0" : "1.0");
            case "emptyContainers": return array(size, i -> i % 2 == 0 ? "{}" : "[]");
            case "longStrings": return array(size, i -> "\"" + repeat("caf\u00e9 \\\"x\\\" \\u00e9 ", Math.min(600, size / 40)) + "\"");
            case "longKeys": return longKeys(size);
            default: throw new IllegalArgumentException(shape);
        }
    }

    /**
     * 990 characters, the most Jackson allows is 1000: a few digits, then zeros that stripping them by value
     * (BigDecimal.stripTrailingZeros, one division each) made quadratic; an exponent.
     */
    private static String longNumber(int i) {
        StringBuilder s = new StringBuilder(i % 2 == 0 ? "-" : "");
        s.append(1 + i % 9).append(i % 1000).append(i % 3 == 0 ? "." : "");
        while (s.length() < 984) s.append('0');
        return s.append("e-").append(i % 50).toString();
    }

    private static String nested(int depth) {
        return repeat("[", depth) + "1" + repeat("]", depth);
    }

    /** An array of generated elements, as many as fit in {@code size} bytes (at least one). */
    private static byte[] array(int size, IntFunction<String> element) {
        StringBuilder json = new StringBuilder("[");
        for (int i = 0; ; i++) {
            String next = (i == 0 ? "" : ",") + element.apply(i);
            if (i > 0 && json.length() + next.length() + 1 > size) break;
            json.append(next);
        }
        return json.append(']').toString().getBytes(StandardCharsets.UTF_8);
    }

    /** Short keys in random order: the sort does the work (a shared prefix defeats a sort's shortcuts). */
    private static byte[] manyKeys(int size, String prefix) {
        List<String> members = new ArrayList<>();
        for (int i = 0, length = 2; length < size - 20; i++) {
            String member = "\"" + prefix + Integer.toString(i, 36) + "\":" + i;
            members.add(member);
            length += member.length() + 1;
        }
        Collections.shuffle(members, new Random(42));
        return ("{" + String.join(",", members) + "}").getBytes(StandardCharsets.UTF_8);
    }

    /** Keys of up to 40 000 characters (Jackson allows 50 000) sharing all but their last characters. */
    private static byte[] longKeys(int size) {
        int keyLength = Math.min(40_000, size / 4);
        String prefix = repeat("k", keyLength - 6);
        List<String> members = new ArrayList<>();
        for (int i = 0, length = 2; length + keyLength + 10 < size; i++) {
            String member = "\"" + prefix + String.format("%06d", i) + "\":" + i;
            members.add(member);
            length += member.length() + 1;
        }
        Collections.shuffle(members, new Random(42));
        return ("{" + String.join(",", members) + "}").getBytes(StandardCharsets.UTF_8);
    }

    private static String repeat(String s, int times) {
        StringBuilder b = new StringBuilder(s.length() * times);
        for (int i = 0; i < times; i++) b.append(s);
        return b.toString();
    }

    /**
     * An order with as many lines as fit, keys deliberately unsorted, numbers in several spellings; a padding field
     * makes it exactly {@code size} bytes.
     */
    static byte[] orderJson(int size) {
        String head = "{\"order\":{\"customer\":{\"name\":\"Ada Lovelace\",\"id\":\"cus_8241\",\"vip\":true},\"currency\":\"EUR\",\"lines\":[";
        String tail = "],\"note\":\"";
        String end = "\"},\"idempotent\":null}";
        StringBuilder lines = new StringBuilder();
        for (int i = 0; ; i++) {
            String line = (i == 0 ? "" : ",") + "{\"sku\":\"SKU-" + (100000 + i) + "\",\"qty\":" + (1 + i % 7)
                    + ",\"price\":" + (i % 3 == 0 ? "12.50" : i % 3 == 1 ? "1.25e1" : "125E-1")
                    + ",\"tags\":[\"gift\",\"fragile\"],\"discount\":{\"rate\":0.10,\"code\":null}}";
            if (head.length() + lines.length() + line.length() + tail.length() + end.length() > size) break;
            lines.append(line);
        }
        StringBuilder json = new StringBuilder(head).append(lines).append(tail);
        while (json.length() + end.length() < size) json.append('x');
        byte[] bytes = json.append(end).toString().getBytes(StandardCharsets.UTF_8);
        if (bytes.length != size) throw new IllegalStateException("body of " + bytes.length + " bytes, not " + size);
        return bytes;
    }
}
