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
import java.util.concurrent.TimeUnit;

/**
 * The request fingerprint of a keyed POST: a JSON body canonicalised (parsed, keys sorted, numbers by value) and
 * hashed, against the same bytes hashed raw (what any non-JSON, non-form body costs), at 1 KiB and at 1 MiB, the
 * default largest keyed body.
 */
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MICROSECONDS)
@State(Scope.Benchmark)
public class RequestFingerprintBenchmark {
    @Param({"1024", "1048576"})
    public int bodyBytes;

    private byte[] body;
    private String path = "/shop/payments";

    @Setup
    public void setUp() {
        body = orderJson(bodyBytes);
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
