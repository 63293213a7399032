package dev.idempotency.store.redis;

import dev.idempotency.store.StoredResponse;
import redis.clients.jedis.Jedis;

import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Redis's ceiling for keyed requests, as pgbench is PostgreSQL's: the store's own two scripts of a first request
 * (reserve a new key, record its response), one connection per client, nothing else (no pool, no HTTP, no agent).
 * Run by demo-apps/bench/run.sh, not a test.
 *
 * <p>Arguments: Redis URL, key prefix, clients, warm-up seconds, seconds. Prints one line:
 * {@code RESULT requests=N duration_us=N p50_us=N p99_us=N errors=N}.
 */
public final class RedisCeilingBenchmark {
    private static final byte[] FINGERPRINT = KeyLayout.bytes("fingerprint");
    private static final byte[] FIRST = KeyLayout.bytes("0");
    private static final StoredResponse RESPONSE = new StoredResponse(201,
            Collections.singletonList(new StoredResponse.Header("Content-Type", "application/json")),
            "{\"id\":\"ch_1\"}".getBytes(StandardCharsets.UTF_8));

    public static void main(String[] args) throws Exception {
        if (args.length != 5) {
            System.err.println("usage: RedisCeilingBenchmark REDIS_URL PREFIX CLIENTS WARMUP_SECONDS SECONDS");
            System.exit(2);
        }
        URI url = URI.create(args[0]);
        KeyLayout layout = new KeyLayout(args[1]);
        int clients = Integer.parseInt(args[2]);
        List<Jedis> connections = new ArrayList<>();
        try {
            for (int i = 0; i < clients; i++) {
                Jedis jedis = new Jedis(url);
                jedis.ping(); // connected before the clock starts
                connections.add(jedis);
            }
            Script.RESERVE.cache(connections.get(0));
            Script.COMPLETE.cache(connections.get(0));
            int warmUp = Integer.parseInt(args[3]);
            if (warmUp > 0) cycles(connections, layout, warmUp, "w", new ArrayList<>(), new AtomicLong());
            List<long[]> latencies = new ArrayList<>();
            AtomicLong errors = new AtomicLong();
            long begin = System.nanoTime();
            long requests = cycles(connections, layout, Integer.parseInt(args[4]), "m", latencies, errors);
            long durationMicros = (System.nanoTime() - begin) / 1000;
            long[] all = latencies.stream().flatMapToLong(Arrays::stream).sorted().toArray();
            System.out.printf("RESULT requests=%d duration_us=%d p50_us=%d p99_us=%d errors=%d%n", requests, durationMicros,
                    percentile(all, 0.50), percentile(all, 0.99), errors.get());
        } finally {
            for (Jedis c : connections) c.close();
        }
    }

    private static long cycles(List<Jedis> connections, KeyLayout layout, int seconds, String phase, List<long[]> latencies,
                               AtomicLong errors) throws InterruptedException {
        AtomicLong total = new AtomicLong();
        CountDownLatch done = new CountDownLatch(connections.size());
        long end = System.nanoTime() + seconds * 1_000_000_000L;
        String run = Long.toHexString(System.currentTimeMillis()) + "-" + phase;
        byte[] lease = RedisIdempotencyStore.number(30_000);
        byte[] ttl = RedisIdempotencyStore.number(86_400_000L);
        byte[] policy = KeyLayout.bytes("RECONCILE");
        byte[] retention = RedisIdempotencyStore.number(30L * 86_400_000L);
        byte[] status = ResponseCodec.status(RESPONSE);
        byte[] headers = ResponseCodec.headers(RESPONSE);
        byte[] body = RESPONSE.body();
        for (int t = 0; t < connections.size(); t++) {
            Jedis redis = connections.get(t);
            String client = run + "-" + t + "-";
            new Thread(() -> {
                int n = 0;
                long[] samples = new long[1024];
                try {
                    while (System.nanoTime() < end) {
                        byte[] id = KeyLayout.id("redis-ceiling", client + n);
                        byte[] token = KeyLayout.bytes(client + n);
                        byte[][] keys = layout.keysOf(id);
                        long start = System.nanoTime();
                        List<?> reserved = (List<?>) Script.RESERVE.run(redis, keys, id, FINGERPRINT, token, lease, ttl,
                                policy, retention);
                        Object completed = Script.COMPLETE.run(redis, keys, id, token, status, headers, body, FIRST);
                        if (!"ACQUIRED".equals(new String((byte[]) reserved.get(0), StandardCharsets.UTF_8))
                                || !Long.valueOf(1).equals(completed)) {
                            errors.incrementAndGet();
                        }
                        if (n == samples.length) samples = Arrays.copyOf(samples, n * 2);
                        samples[n] = System.nanoTime() - start;
                        n++;
                    }
                } catch (RuntimeException e) {
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
