package dev.idempotency.agent.benchmarks;

import dev.idempotency.agent.core.protocol.IdempotencyKeyParser;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;

import java.util.Collections;
import java.util.List;
import java.util.concurrent.TimeUnit;

/** Reading and validating the Idempotency-Key field, which every keyed request pays for before anything else. */
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@State(Scope.Benchmark)
public class IdempotencyKeyBenchmark {
    private IdempotencyKeyParser parser;
    // Not final and not constants, so that the JIT cannot fold the parse away.
    private List<String> uuidField;
    private String sfString;
    private String longest;
    private String notAscii;

    @Setup
    public void setUp() {
        parser = new IdempotencyKeyParser(255);
        uuidField = Collections.singletonList("8e03978e-40d5-43e8-bc93-6894a57f9324");
        sfString = " \"order-2024-0042 \\\"retry\\\" \\\\ 3\" ";
        StringBuilder key = new StringBuilder();
        while (key.length() < 255) key.append((char) ('!' + key.length() % 94));
        longest = key.toString();
        notAscii = "order-2024-\u00e9t\u00e9-0042";
    }

    /** The common case, as the gate calls it: one field holding a bare UUID. */
    @Benchmark
    public IdempotencyKeyParser.Result bareUuid() {
        return parser.parse(uuidField);
    }

    /** A quoted sf-string with escapes and surrounding whitespace. */
    @Benchmark
    public IdempotencyKeyParser.Result sfStringWithEscapes() {
        return parser.parse(sfString);
    }

    /** The longest key accepted (255 printable characters). */
    @Benchmark
    public IdempotencyKeyParser.Result longestKey() {
        return parser.parse(longest);
    }

    /** Refused: a non-ASCII character (the problem text is built). */
    @Benchmark
    public IdempotencyKeyParser.Result rejectedNonAscii() {
        return parser.parse(notAscii);
    }
}
