package dev.idempotency.store.bench;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The client loop of a database's ceiling benchmark: one thread per client, each running its cycle on a new key until
 * the time is up, counting cycles, failed cycles and each cycle's latency. Prints the harness's RESULT line.
 */
public final class CeilingLoop {
    /** One client's cycle on a new key; false when the database did not do what the cycle asked. */
    public interface Cycle {
        boolean run(String key) throws Exception;
    }

    private CeilingLoop() {
    }

    /** Warm-up, then the measured seconds; prints {@code RESULT requests=N duration_us=N p50_us=N p99_us=N errors=N}. */
    public static void measure(List<? extends Cycle> clients, int warmUpSeconds, int seconds) throws InterruptedException {
        if (warmUpSeconds > 0) cycles(clients, warmUpSeconds, "w", new ArrayList<>(), new AtomicLong());
        List<long[]> latencies = new ArrayList<>();
        AtomicLong errors = new AtomicLong();
        long begin = System.nanoTime();
        long requests = cycles(clients, seconds, "m", latencies, errors);
        long durationMicros = (System.nanoTime() - begin) / 1000;
        long[] all = latencies.stream().flatMapToLong(Arrays::stream).sorted().toArray();
        System.out.printf("RESULT requests=%d duration_us=%d p50_us=%d p99_us=%d errors=%d%n", requests, durationMicros,
                percentile(all, 0.50), percentile(all, 0.99), errors.get());
    }

    private static long cycles(List<? extends Cycle> clients, int seconds, String phase, List<long[]> latencies,
                               AtomicLong errors) throws InterruptedException {
        AtomicLong total = new AtomicLong();
        CountDownLatch done = new CountDownLatch(clients.size());
        long end = System.nanoTime() + seconds * 1_000_000_000L;
        // Keys unique across runs on the same table, as pgbench's random ones are.
        String run = Long.toHexString(System.currentTimeMillis()) + "-" + phase;
        for (int t = 0; t < clients.size(); t++) {
            Cycle cycle = clients.get(t);
            String client = run + "-" + t + "-";
            new Thread(() -> {
                int n = 0;
                long[] samples = new long[1024];
                try {
                    while (System.nanoTime() < end) {
                        long start = System.nanoTime();
                        if (!cycle.run(client + n)) errors.incrementAndGet();
                        if (n == samples.length) samples = Arrays.copyOf(samples, n * 2);
                        samples[n] = System.nanoTime() - start;
                        n++;
                    }
                } catch (Exception e) {
                    errors.incrementAndGet();
                    System.err.println("client failed: " + e);
                } finally {
                    synchronized (latencies) {
                        latencies.add(Arrays.copyOf(samples, n));
                    }
                    total.addAndGet(n);
                    done.countDown();
                }
            }).start();
        }
        done.await();
        return total.get();
    }

    private static long percentile(long[] sorted, double p) {
        if (sorted.length == 0) return 0;
        return sorted[Math.min(sorted.length - 1, (int) (sorted.length * p))] / 1000;
    }
}
