package dev.idempotency.store.redis;

import dev.idempotency.store.SchemaMode;
import dev.idempotency.store.StoreConfigurationException;
import dev.idempotency.store.StoreSettings;
import redis.clients.jedis.HostAndPort;
import redis.clients.jedis.Jedis;
import redis.clients.jedis.params.SetParams;

import redis.clients.jedis.exceptions.JedisDataException;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * What must hold of a Redis server before it keeps idempotency keys; what the store's schema mode means there.
 *
 * <p>Every master is checked (each of a Cluster's), and must be what the URL says: a Cluster node only under {@code
 * redis-cluster://}. {@code maxmemory-policy} must be {@code noeviction}: a server that evicts keys under memory
 * pressure forgets a completed or in-flight key without anyone deciding so, and a retry of it then runs again, the one
 * thing the store exists to prevent. That is a refusal, not a warning: nothing on the request path could tell an
 * evicted key from a new one. Under {@code noeviction} a full server refuses writes ({@code OOM}), which the store
 * turns into a 503.
 *
 * <p>Persistence is the operator's to choose, so a master that would forget its keys on a restart (no append-only file)
 * is a caution the agent logs at start-up, not a refusal: a cache-like Redis may be a deliberate choice.
 *
 * <p>The layout marker records the key layout ({@link KeyLayout#VERSION}): schema mode {@code create} writes it when
 * absent, {@code validate} requires it, and both refuse a prefix written by another layout; {@code none} checks only
 * that the server answers and is what the URL says (the cautions are read under every mode: they never refuse).
 */
final class RedisStoreCheck {
    private RedisStoreCheck() {
    }

    /** Throws what forbids keeping keys on the server; returns what an operator should know (the cautions). */
    static List<String> check(RedisConnections connections, StoreSettings settings, KeyLayout layout,
            RedisEndpoint endpoint) {
        List<String> cautions = new ArrayList<>();
        for (HostAndPort master : connections.masters("check the store")) {
            String caution = connections.onMaster("check the store", master, redis -> {
                checkServer(redis, settings, endpoint, master);
                return persistenceCaution(infoSection(redis, "persistence"), config(redis, "save"));
            });
            if (caution != null) cautions.add("Redis at " + where(endpoint, master) + ": " + caution);
        }
        if (settings.schemaMode() != SchemaMode.NONE) checkLayout(connections, settings, layout, endpoint);
        return Collections.unmodifiableList(cautions);
    }

    private static void checkLayout(RedisConnections connections, StoreSettings settings, KeyLayout layout,
            RedisEndpoint endpoint) {
        byte[] marker = connections.background("check the store", layout.layoutMarker(), redis -> {
            if (settings.schemaMode() == SchemaMode.CREATE) {
                redis.set(layout.layoutMarker(), KeyLayout.bytes(KeyLayout.VERSION), SetParams.setParams().nx());
            }
            return redis.get(layout.layoutMarker());
        });
        if (marker == null) {
            throw new StoreConfigurationException("Redis at " + endpoint + " holds no idempotency store with prefix '"
                    + layout.prefix() + "' (no key '" + layout.prefix() + ":layout'); use schema mode create once");
        }
        String found = new String(marker, StandardCharsets.UTF_8);
        if (!KeyLayout.VERSION.equals(found)) {
            throw new StoreConfigurationException("Redis at " + endpoint + " holds keys with prefix '" + layout.prefix()
                    + "' in layout '" + found + "', which this version does not read (it writes '" + KeyLayout.VERSION
                    + "'); use another table setting (the prefix) or the version that wrote them");
        }
    }

    /** One server (each master of a Cluster): it answers, it is what the URL says it is, and it never evicts. */
    private static void checkServer(Jedis redis, StoreSettings settings, RedisEndpoint endpoint, HostAndPort master) {
        redis.ping();
        boolean clusterNode = "1".equals(fields(redis.info("cluster")).get("cluster_enabled"));
        if (clusterNode && !endpoint.cluster()) {
            throw new StoreConfigurationException("Redis at " + endpoint + " is a node of a Redis Cluster, which "
                    + "serves only some of the keys: name its nodes in a redis-cluster:// URL");
        }
        if (!clusterNode && endpoint.cluster()) {
            throw new StoreConfigurationException("Redis at " + master + " is not a Cluster node (cluster_enabled:0):"
                    + " use redis:// or redis-sentinel:// for it");
        }
        if (settings.schemaMode() == SchemaMode.NONE) return;
        String problem = evictionProblem(redis, endpoint, master);
        if (problem != null) throw new StoreConfigurationException(problem);
    }

    /**
     * The first master that may evict keys now, described; null when none may (or with schema mode {@code none}, as
     * at start-up). Asked again by every sweep: a master added to a Cluster, or a replica promoted by Sentinel, was
     * not there when the store started.
     */
    static String evictingMaster(RedisConnections connections, StoreSettings settings, RedisEndpoint endpoint) {
        if (settings.schemaMode() == SchemaMode.NONE) return null;
        for (HostAndPort master : connections.masters("check the eviction policy")) {
            String problem = connections.onMaster("check the eviction policy", master,
                    redis -> evictionProblem(redis, endpoint, master));
            if (problem != null) return problem;
        }
        return null;
    }

    private static String evictionProblem(Jedis redis, RedisEndpoint endpoint, HostAndPort master) {
        String policy = evictionPolicy(redis.info("memory"));
        if ("noeviction".equals(policy)) return null;
        return "Redis at " + where(endpoint, master)
                + " has maxmemory-policy " + (policy == null ? "that it does not report (INFO memory)" : "'" + policy + "'")
                + ": it may evict idempotency keys, and a retry of an evicted key runs again. Set "
                + "'maxmemory-policy noeviction' (a full server then refuses writes and the store answers 503)";
    }

    /**
     * What a restart of a server with these persistence settings ({@code INFO persistence} and {@code CONFIG GET
     * save}, each null when refused) would lose, or null with an append-only file. Its fsync policy is the operator's
     * trade-off, which {@code doctor} describes.
     */
    static String persistenceCaution(Map<String, String> info, String save) {
        if (info == null) {
            return "persistence not readable (INFO persistence refused): without appendonly yes a restart forgets every"
                    + " key, and their retries run again";
        }
        if ("1".equals(info.get("aof_enabled"))) return null;
        if (save != null && !save.trim().isEmpty()) {
            return "RDB snapshots only (save " + save.trim() + "): a restart loses every key written since the last "
                    + "snapshot, and their retries run again -> appendonly yes";
        }
        return (save == null ? "appendonly off (snapshots not readable)" : "no persistence")
                + ": a restart forgets every key, and their retries run again -> appendonly yes";
    }

    /** One section of {@code INFO} by field, or null where an ACL refuses that section. */
    static Map<String, String> infoSection(Jedis redis, String section) {
        try {
            return fields(redis.info(section));
        } catch (JedisDataException refused) {
            return null;
        }
    }

    /** A configuration value; null where {@code CONFIG} is refused (renamed or forbidden, as managed services do). */
    static String config(Jedis redis, String name) {
        try {
            return redis.configGet(name).get(name);
        } catch (JedisDataException refused) {
            return null;
        }
    }

    /** The master named once: a standalone server's URL already says which it is. */
    private static String where(RedisEndpoint endpoint, HostAndPort master) {
        if (endpoint.cluster()) return master + " (a master of " + endpoint + ")";
        return endpoint.viaSentinel() ? master + " (the master of " + endpoint + ")" : endpoint.toString();
    }

    /** The {@code maxmemory_policy} line of {@code INFO memory}, or null. */
    static String evictionPolicy(String info) {
        return fields(info).get("maxmemory_policy");
    }

    /** The fields of an {@code INFO} answer (or of {@code CLUSTER INFO}), by name. */
    static Map<String, String> fields(String info) {
        Map<String, String> fields = new HashMap<>();
        for (String line : info.split("\r?\n")) {
            int colon = line.indexOf(':');
            if (colon <= 0 || line.startsWith("#")) continue;
            fields.put(line.substring(0, colon), line.substring(colon + 1).trim());
        }
        return fields;
    }
}
