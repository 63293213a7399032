package dev.idempotency.store.redis;

import dev.idempotency.store.testing.LocalServers;
import redis.clients.jedis.Jedis;
import redis.clients.jedis.params.ScanParams;
import redis.clients.jedis.resps.ScanResult;

import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.ThreadLocalRandom;

/**
 * The Redis server the tests use ({@code IDEMPOTENCY_TEST_REDIS_URL}; without it the tests are skipped with the
 * reason, or fail under {@code -Didempotency.test.require-databases=true}), and what the tests do to a store's keys
 * behind its back: each test's own prefix, a key's times moved on the server's clock, the prefix's keys dropped.
 */
public final class RedisTestServer {
    public static final String REDIS_ENV = "IDEMPOTENCY_TEST_REDIS_URL";

    /** Moves one time of a key to the server's now plus ARGV[3] seconds, and the index that orders it. */
    static final String SET_TIME = "local t = redis.call('TIME')\n"
            + "local at = string.format('%.0f', tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000) + tonumber(ARGV[3]) * 1000)\n"
            + "if redis.call('EXISTS', KEYS[1]) == 0 then return redis.error_reply('no such key') end\n"
            + "redis.call('HSET', KEYS[1], ARGV[2], at)\n"
            // Lease and creation indexes hold the times themselves; the due index only needs to be no later than the
            // time the purge must look (it moves a key it looked at too early to its next due time itself).
            + "if ARGV[2] == 'lease' then redis.call('ZADD', KEYS[2], 'XX', at, ARGV[1]) end\n"
            + "if ARGV[2] == 'created' then redis.call('ZADD', KEYS[4], 'XX', at, ARGV[1]) end\n"
            + "if ARGV[2] == 'expires' or ARGV[2] == 'updated' then redis.call('ZADD', KEYS[3], 'XX', '0', ARGV[1]) end\n"
            + "return 1";
    static final String LEASE_RAN_OUT = "local t = redis.call('TIME')\n"
            + "local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)\n"
            + "local lease = redis.call('HGET', KEYS[1], 'lease')\n"
            + "if lease and tonumber(lease) <= now then return 1 end\n"
            + "return 0";

    private RedisTestServer() {
    }

    /** A server of the test run's own, started on first need when no URL is given; stopped when the JVM ends. */
    private static String ownServerUrl;

    /**
     * The URL of the server under test: {@code IDEMPOTENCY_TEST_REDIS_URL} when set; otherwise a redis-server of the
     * test run's own from the machine's packages, as the JDBC suites fall back to a container; otherwise the test is
     * skipped with the reason, or fails under {@code -Didempotency.test.require-databases=true}.
     */
    public static synchronized String url() {
        String url = System.getenv(REDIS_ENV);
        if (url != null && !url.trim().isEmpty()) return url.trim();
        if (ownServerUrl == null) {
            if (!OwnRedis.installed()) {
                LocalServers.unavailable(REDIS_ENV + " is not set (redis://host:port) and redis-server is not installed");
            }
            try {
                OwnRedis own = OwnRedis.start("--maxmemory-policy", "noeviction");
                Runtime.getRuntime().addShutdownHook(new Thread(() -> {
                    try {
                        own.close();
                    } catch (InterruptedException e) {
                        Thread.currentThread().interrupt();
                    }
                }));
                ownServerUrl = own.url();
            } catch (Exception e) {
                throw new IllegalStateException("cannot start a redis-server for the tests", e);
            }
        }
        return ownServerUrl;
    }

    public static String randomPrefix() {
        return "idem_test_" + Long.toHexString(ThreadLocalRandom.current().nextLong() & Long.MAX_VALUE);
    }

    public static Jedis connect() {
        return new Jedis(URI.create(url()));
    }

    /** The moved-time hook of the store contract: {@code field} is the hash field (lease, created, updated, expires). */
    public static void setTime(String prefix, String scope, String key, String field, long seconds) {
        byte[] id = KeyLayout.id(scope, key);
        try (Jedis redis = connect()) {
            redis.eval(SET_TIME.getBytes(StandardCharsets.UTF_8), Arrays.asList(new KeyLayout(prefix).keysOf(id)),
                    Arrays.asList(id, bytes(field), bytes(Long.toString(seconds))));
        }
    }

    public static boolean leaseRanOut(String prefix, String scope, String key) {
        byte[] id = KeyLayout.id(scope, key);
        try (Jedis redis = connect()) {
            return Long.valueOf(1).equals(redis.eval(LEASE_RAN_OUT.getBytes(StandardCharsets.UTF_8),
                    Arrays.asList(new KeyLayout(prefix).keysOf(id)), Arrays.<byte[]>asList()));
        }
    }

    /** The Redis key holding (scope, key) under a prefix: for tests that look at the stored bytes. */
    public static String hashKey(String prefix, String scope, String key) {
        return new String(new KeyLayout(prefix).hash(KeyLayout.id(scope, key)), StandardCharsets.UTF_8);
    }

    /** Every key a store with this prefix wrote (a test's own: SCAN is fine here, never in the store). */
    public static List<String> keysOf(String prefix) {
        try (Jedis redis = connect()) {
            java.util.List<String> all = new java.util.ArrayList<>();
            ScanParams match = new ScanParams().match("*" + prefix + "*").count(1000);
            String cursor = ScanParams.SCAN_POINTER_START;
            do {
                ScanResult<String> page = redis.scan(cursor, match);
                all.addAll(page.getResult());
                cursor = page.getCursor();
            } while (!cursor.equals(ScanParams.SCAN_POINTER_START));
            return all;
        }
    }

    public static void dropPrefix(String prefix) {
        List<String> keys = keysOf(prefix);
        if (keys.isEmpty()) return;
        try (Jedis redis = connect()) {
            redis.del(keys.toArray(new String[0]));
        }
    }

    private static byte[] bytes(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }
}
