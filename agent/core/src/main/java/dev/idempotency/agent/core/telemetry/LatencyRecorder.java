package dev.idempotency.agent.core.telemetry;

import java.util.Arrays;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicLongArray;
import java.util.concurrent.atomic.LongAdder;

/**
 * Durations of one store operation: a cumulative histogram (for Prometheus) and the most recent samples (for the p50
 * and p99 over a recent window). Recording is lock-free and allocation-free; reading copies the window.
 */
public final class LatencyRecorder {
    /** Upper bounds of the histogram buckets, in seconds. */
    static final double[] BOUNDS = {0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10};
    /** The same bounds in nanoseconds: a sample is placed without a division. */
    private static final long[] BOUND_NANOS = new long[BOUNDS.length];
    private static final int WINDOW = 1024;

    static {
        for (int i = 0; i < BOUNDS.length; i++) BOUND_NANOS[i] = Math.round(BOUNDS[i] * 1e9);
    }

    /** Each sample counts in one bucket only; the count is their sum (one atomic add fewer per sample). */
    private final LongAdder[] buckets = new LongAdder[BOUNDS.length + 1];
    private final LongAdder sumNanos = new LongAdder();
    private final AtomicLongArray recent = new AtomicLongArray(WINDOW);
    private final AtomicLong written = new AtomicLong();

    public LatencyRecorder() {
        for (int i = 0; i < buckets.length; i++) buckets[i] = new LongAdder();
    }

    public void record(long nanos) {
        int bucket = 0;
        while (bucket < BOUND_NANOS.length && nanos > BOUND_NANOS[bucket]) bucket++;
        buckets[bucket].increment();
        sumNanos.add(nanos);
        // Ordered, not volatile: a reader copying the window may miss the very latest samples, never a whole one.
        recent.lazySet((int) (written.getAndIncrement() % WINDOW), nanos);
    }

    public long count() {
        long n = 0;
        for (LongAdder b : buckets) n += b.sum();
        return n;
    }

    public double sumSeconds() { return sumNanos.sum() / 1e9; }

    /** Cumulative counts per bound of {@link #BOUNDS}, then the total (+Inf). */
    long[] cumulativeBuckets() {
        long[] cumulative = new long[buckets.length];
        long running = 0;
        for (int i = 0; i < buckets.length; i++) {
            running += buckets[i].sum();
            cumulative[i] = running;
        }
        return cumulative;
    }

    /** The quantile (0..1) of the recent window, in milliseconds; 0 when nothing was recorded. */
    public double recentQuantileMillis(double quantile) {
        int n = (int) Math.min(written.get(), WINDOW);
        if (n == 0) return 0;
        long[] samples = new long[n];
        for (int i = 0; i < n; i++) samples[i] = recent.get(i);
        Arrays.sort(samples);
        int index = (int) Math.min(n - 1, Math.max(0, Math.ceil(quantile * n) - 1));
        return samples[index] / 1e6;
    }
}
