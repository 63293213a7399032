package dev.idempotency.agent.benchmarks;

import dev.idempotency.agent.core.protocol.RequestPath;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.State;

import java.util.concurrent.TimeUnit;

/** Normalising the request path, done for every keyed request before patterns and the fingerprint see it. */
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@State(Scope.Benchmark)
public class RequestPathBenchmark {
    private String plain = "/shop/payments";
    private String tricky = "/shop/x/../%70ayments;jsessionid=0F1E2D3C4B5A//";

    @Benchmark
    public String plainPath() {
        return RequestPath.normalise(plain);
    }

    /** Escapes, a dot segment, a path parameter and empty segments. */
    @Benchmark
    public String trickyPath() {
        return RequestPath.normalise(tricky);
    }
}
