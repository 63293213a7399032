package dev.idempotency.store.redis;

import redis.clients.jedis.Jedis;
import redis.clients.jedis.JedisCluster;
import redis.clients.jedis.params.ScanParams;
import redis.clients.jedis.resps.ScanResult;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * The Redis Cluster the store contract runs on: one of the test run's own ({@link OwnRedisCluster}), started on first
 * need and stopped when the JVM ends, and what the contract does to a store's keys behind its back, routed by slot.
 */
public final class RedisClusterTestServer {
    private static OwnRedisCluster cluster;
    private static JedisCluster client;

    private RedisClusterTestServer() {
    }

    public static synchronized String url() {
        if (cluster == null) {
            try {
                OwnRedisCluster started = OwnRedisCluster.start();
                Runtime.getRuntime().addShutdownHook(new Thread(() -> {
                    try {
                        client.close();
                        started.close();
                    } catch (Exception e) {
                        // the JVM ends; the servers' processes end with their pipes
                    }
                }));
                cluster = started;
                client = started.client();
            } catch (RuntimeException e) {
                throw e;
            } catch (Exception e) {
                throw new IllegalStateException("cannot start a Redis Cluster for the tests", e);
            }
        }
        return cluster.url();
    }

    /** As {@link RedisTestServer#setTime}, on the master of the key's slot. */
    public static void setTime(String prefix, String scope, String key, String field, long seconds) {
        byte[] id = KeyLayout.id(scope, key);
        client.eval(RedisTestServer.SET_TIME.getBytes(StandardCharsets.UTF_8),
                Arrays.asList(new KeyLayout(prefix).keysOf(id)),
                Arrays.asList(id, bytes(field), bytes(Long.toString(seconds))));
    }

    public static boolean leaseRanOut(String prefix, String scope, String key) {
        byte[] id = KeyLayout.id(scope, key);
        return Long.valueOf(1).equals(client.eval(RedisTestServer.LEASE_RAN_OUT.getBytes(StandardCharsets.UTF_8),
                Arrays.asList(new KeyLayout(prefix).keysOf(id)), Arrays.<byte[]>asList()));
    }

    /** Every key under the prefix, on every master, dropped. */
    public static void dropPrefix(String prefix) {
        for (OwnRedis node : cluster.nodes) {
            try (Jedis j = node.connect()) {
                if (!j.info("replication").contains("role:master")) continue;
                List<String> keys = new ArrayList<>();
                ScanParams match = new ScanParams().match("*" + prefix + "*").count(1000);
                String cursor = ScanParams.SCAN_POINTER_START;
                do {
                    ScanResult<String> page = j.scan(cursor, match);
                    keys.addAll(page.getResult());
                    cursor = page.getCursor();
                } while (!cursor.equals(ScanParams.SCAN_POINTER_START));
                for (String k : keys) j.del(k); // one by one: the keys of one master span many slots
            }
        }
    }

    private static byte[] bytes(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }
}
