package dev.idempotency.store.bench;

import dev.idempotency.store.Reservation;
import dev.idempotency.store.StoreSettings;
import dev.idempotency.store.StoredResponse;
import dev.idempotency.store.jdbc.JdbcIdempotencyStore;

import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Reserve-then-complete cycles per second at several thread counts: each cycle is one new key reserved and its
 * response stored, the path of every first request. A benchmark to rerun by hand (store/bench/run.sh), not a test.
 *
 * <p>Arguments: JDBC URL, thread counts (comma separated, default 1,8,32), seconds per run (default 10), group commit
 * modes (comma separated, {@code off,on} by default: both, alternating at each thread count in one run), response body
 * bytes (default: a 65-byte payment; more pads it with a description).
 */
public final class ReserveCompleteBenchmark {

    public static void main(String[] args) throws Exception {
        String url = args.length > 0 ? args[0] : "jdbc:postgresql://127.0.0.1:5432/test?user=postgres";
        int[] threadCounts = Arrays.stream((args.length > 1 ? args[1] : "1,8,32").split(",")).mapToInt(Integer::parseInt).toArray();
        int seconds = args.length > 2 ? Integer.parseInt(args[2]) : 10;
        String table = "idempotency_bench";
        int maxThreads = Arrays.stream(threadCounts).max().getAsInt();
        String[] modes = (args.length > 3 ? args[3] : "off,on").split(",");
        int bodyBytes = args.length > 4 ? Integer.parseInt(args[4]) : 0;
        StoredResponse response = new StoredResponse(201,
                Collections.singletonList(new StoredResponse.Header("Content-Type", "application/json")), body(bodyBytes));

        List<JdbcIdempotencyStore> stores = new ArrayList<>();
        try {
            for (String mode : modes) {
                JdbcIdempotencyStore store = JdbcIdempotencyStore.open(StoreSettings.builder().url(url).table(table)
                        .poolSize(maxThreads).groupCommit(mode.trim().equals("on")).build());
                stores.add(store);
                store.checkSchema();
            }
            System.out.printf("store benchmark: %s, %d s per run, response body %d bytes%n", stores.get(0).dialectName(), seconds,
                    response.bodyLength());
            System.out.println("threads  group commit   cycles/s   p50 ms   p99 ms   batches (reserve; complete)");
            for (int threads : threadCounts) {
                for (int m = 0; m < modes.length; m++) {
                    JdbcIdempotencyStore store = stores.get(m);
                    warmUp(store, response, threads);
                    String before = store.reservationFigures() + "; " + store.completionFigures();
                    run(store, response, threads, seconds, modes[m].trim());
                    System.out.printf("        (before: %s; after: %s; %s)%n", before, store.reservationFigures(), store.completionFigures());
                }
            }
        } finally {
            stores.forEach(JdbcIdempotencyStore::close);
        }
        try (Connection c = DriverManager.getConnection(url); Statement s = c.createStatement()) {
            s.execute("DELETE FROM " + table);
        }
    }

    /** A payment's JSON, padded with a description to {@code bytes} when that is longer. */
    private static byte[] body(int bytes) {
        String json = "{\"id\":\"ch_1\",\"amount\":1000,\"currency\":\"eur\",\"status\":\"succeeded\"}";
        int padding = bytes - json.length() - ",\"description\":\"\"".length();
        if (padding > 0) {
            StringBuilder description = new StringBuilder(padding);
            for (int i = 0; i < padding; i++) description.append((char) ('a' + i % 26));
            json = json.substring(0, json.length() - 1) + ",\"description\":\"" + description + "\"}";
        }
        return json.getBytes(StandardCharsets.UTF_8);
    }

    private static void warmUp(JdbcIdempotencyStore store, StoredResponse response, int threads) throws InterruptedException {
        cycles(store, response, threads, 2, new ArrayList<>());
    }

    private static void run(JdbcIdempotencyStore store, StoredResponse response, int threads, int seconds, String mode)
            throws InterruptedException {
        List<long[]> latencies = new ArrayList<>();
        long count = cycles(store, response, threads, seconds, latencies);
        long[] all = latencies.stream().flatMapToLong(Arrays::stream).filter(n -> n > 0).sorted().toArray();
        System.out.printf("%7d %13s %10.0f %8.2f %8.2f%n", threads, mode, count / (double) seconds,
                percentile(all, 0.50) / 1e6, percentile(all, 0.99) / 1e6);
    }

    private static long cycles(JdbcIdempotencyStore store, StoredResponse response, int threads, int seconds,
                               List<long[]> latencies) throws InterruptedException {
        AtomicLong total = new AtomicLong();
        CountDownLatch done = new CountDownLatch(threads);
        long end = System.nanoTime() + seconds * 1_000_000_000L;
        String run = Long.toHexString(System.nanoTime());
        for (int t = 0; t < threads; t++) {
            long[] samples = new long[1 << 20];
            latencies.add(samples);
            int thread = t;
            new Thread(() -> {
                int n = 0;
                try {
                    while (System.nanoTime() < end) {
                        long start = System.nanoTime();
                        Reservation r = store.reserve("bench", run + "-" + thread + "-" + n, "fingerprint");
                        if (!store.complete(r.token(), response)) throw new IllegalStateException("lost ownership");
                        if (n < samples.length) samples[n] = System.nanoTime() - start;
                        n++;
                    }
                } finally {
                    total.addAndGet(n);
                    done.countDown();
                }
            }, "bench-" + t).start();
        }
        done.await();
        return total.get();
    }

    private static long percentile(long[] sorted, double p) {
        return sorted.length == 0 ? 0 : sorted[Math.min(sorted.length - 1, (int) (sorted.length * p))];
    }
}
