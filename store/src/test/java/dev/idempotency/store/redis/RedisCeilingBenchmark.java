package dev.idempotency.store.redis;

import dev.idempotency.store.StoredResponse;
import dev.idempotency.store.bench.CeilingLoop;
import redis.clients.jedis.Jedis;

import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;

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
    private static final byte[] LEASE = RedisIdempotencyStore.number(30_000);
    private static final byte[] TTL = RedisIdempotencyStore.number(86_400_000L);
    private static final byte[] POLICY = KeyLayout.bytes("RECONCILE");
    private static final byte[] RETENTION = RedisIdempotencyStore.number(30L * 86_400_000L);
    private static final byte[] STATUS = ResponseCodec.status(RESPONSE);
    private static final byte[] HEADERS = ResponseCodec.headers(RESPONSE);
    private static final byte[] BODY = RESPONSE.body();

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
            List<CeilingLoop.Cycle> cycles = new ArrayList<>();
            for (Jedis redis : connections) cycles.add(key -> cycle(redis, layout, key));
            CeilingLoop.measure(cycles, Integer.parseInt(args[3]), Integer.parseInt(args[4]));
        } finally {
            for (Jedis c : connections) c.close();
        }
    }

    /** Reserve a new key, then record its response: one request's two scripts. */
    private static boolean cycle(Jedis redis, KeyLayout layout, String key) {
        byte[] id = KeyLayout.id("redis-ceiling", key);
        byte[] token = KeyLayout.bytes(key);
        byte[][] keys = layout.keysOf(id);
        List<?> reserved = (List<?>) Script.RESERVE.run(redis, keys, id, FINGERPRINT, token, LEASE, TTL, POLICY, RETENTION);
        Object completed = Script.COMPLETE.run(redis, keys, id, token, STATUS, HEADERS, BODY, FIRST);
        return "ACQUIRED".equals(new String((byte[]) reserved.get(0), StandardCharsets.UTF_8)) && Long.valueOf(1).equals(completed);
    }
}
