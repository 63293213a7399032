package dev.idempotency.store.redis;

import dev.idempotency.store.SchemaMode;
import dev.idempotency.store.StoreException;
import dev.idempotency.store.StoreSettings;
import redis.clients.jedis.HostAndPort;
import redis.clients.jedis.Jedis;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import static dev.idempotency.store.redis.RedisDiagnosis.Finding.Level.FAIL;
import static dev.idempotency.store.redis.RedisDiagnosis.Finding.Level.OK;
import static dev.idempotency.store.redis.RedisDiagnosis.Finding.Level.WARN;

/**
 * What the operator's {@code doctor} checks on a Redis store, on background connections, changing nothing: each master
 * (every master of a Cluster, and the Cluster's state) and its role, eviction (an evicted key's retry runs again),
 * persistence (a restart without data forgets every key), replicas against {@code replica-acks}, {@code
 * min-replicas-to-write}, and the layout under the prefix.
 */
public final class RedisDiagnosis {
    /** One line of the diagnosis. */
    public static final class Finding {
        public enum Level { OK, WARN, FAIL }

        public final Level level;
        public final String check;
        public final String message;

        Finding(Level level, String check, String message) {
            this.level = level;
            this.check = check;
            this.message = message;
        }
    }

    private final List<Finding> findings = new ArrayList<>();

    private RedisDiagnosis() {
    }

    /**
     * The findings, in order, judged against the settings the agent runs with ({@code configured}: its schema mode and
     * replica-acks; the store may have been opened with others, to change nothing); a server that cannot be reached is
     * a store failure from {@code store}'s own calls.
     */
    public static List<Finding> of(RedisIdempotencyStore store, StoreSettings configured) {
        RedisDiagnosis d = new RedisDiagnosis();
        RedisConnections connections = store.connections();
        RedisEndpoint endpoint = store.endpoint();
        List<HostAndPort> masters = connections.masters("diagnose the store");
        String clusterInfo = null;
        for (HostAndPort master : masters) {
            String where = endpoint.cluster() ? master + " (Cluster " + endpoint + ")" : endpoint.toString();
            try {
                String info = connections.onMaster("diagnose the store", master, redis -> {
                    d.look(redis, configured, endpoint, where);
                    return endpoint.cluster() ? redis.clusterInfo() : null;
                });
                if (clusterInfo == null) clusterInfo = info;
            } catch (StoreException e) {
                if (!endpoint.cluster()) throw e; // the one server: the store's own failure says it
                d.add(FAIL, "server", "master " + master + " does not answer: " + e.getMessage()
                        + " -> is it down, and was its replica promoted? (CLUSTER NODES on another node)");
            }
        }
        if (endpoint.cluster()) {
            if (clusterInfo == null) {
                d.add(FAIL, "cluster", "no master answered: cluster state unknown");
            } else {
                d.cluster(RedisStoreCheck.fields(clusterInfo), masters.size());
            }
        }
        byte[] marker = connections.background("diagnose the store", store.layout().layoutMarker(),
                redis -> redis.get(store.layout().layoutMarker()));
        d.layout(marker, store.layout(), configured.schemaMode());
        return d.findings;
    }

    /** One server: each master of a Cluster, each line naming it. */
    private void look(Jedis redis, StoreSettings settings, RedisEndpoint endpoint, String where) {
        Map<String, String> server = RedisStoreCheck.fields(redis.info("server"));
        Map<String, String> replication = RedisStoreCheck.fields(redis.info("replication"));
        String role = replication.getOrDefault("role", "unknown");
        add(OK, "server", "Redis " + server.getOrDefault("redis_version", "?") + " at " + where
                + ", role " + role + (endpoint.viaSentinel() ? " (named by the sentinels)" : ""));
        if (!"master".equals(role)) {
            add(FAIL, "role", "the server is a " + role + ", which refuses writes -> point the URL at the master, "
                    + "or at the sentinels (redis-sentinel://)");
        }
        String prefix = endpoint.cluster() ? where + ": " : "";
        int before = findings.size();
        eviction(RedisStoreCheck.evictionPolicy(redis.info("memory")));
        persistence(RedisStoreCheck.infoSection(redis, "persistence"), RedisStoreCheck.config(redis, "appendfsync"),
                RedisStoreCheck.config(redis, "save"));
        replicas(replication, settings.replicaAcks(), RedisStoreCheck.config(redis, "min-replicas-to-write"));
        for (int i = before; i < findings.size(); i++) {
            Finding f = findings.get(i);
            findings.set(i, new Finding(f.level, f.check, prefix + f.message));
        }
    }

    /** A Cluster as a whole: its state, and every slot served. */
    private void cluster(Map<String, String> info, int masters) {
        String state = info.getOrDefault("cluster_state", "unknown");
        String covered = info.getOrDefault("cluster_slots_ok", "?");
        if ("ok".equals(state) && "16384".equals(covered)) {
            add(OK, "cluster", "cluster_state ok, all 16384 slots served by " + masters + " master(s), "
                    + info.getOrDefault("cluster_known_nodes", "?") + " node(s) known");
        } else {
            add(FAIL, "cluster", "cluster_state " + state + ", " + covered + " of 16384 slots served: keys in the "
                    + "other slots are answered 503 -> CLUSTER INFO, redis-cli --cluster check");
        }
    }

    private void eviction(String policy) {
        if ("noeviction".equals(policy)) {
            add(OK, "eviction", "maxmemory-policy noeviction: a full server refuses writes (503), it never "
                    + "forgets a key");
        } else {
            String shown = policy == null ? "not reported" : "'" + policy + "'";
            add(FAIL, "eviction", "maxmemory-policy " + shown + ": an evicted key's retry runs again, and the agent "
                    + "refuses to start on it -> CONFIG SET maxmemory-policy noeviction (and in redis.conf)");
        }
    }

    private void persistence(Map<String, String> info, String appendfsync, String save) {
        String caution = RedisStoreCheck.persistenceCaution(info, save);
        if (caution != null) {
            add(WARN, "persistence", caution);
            return;
        }
        add(OK, "persistence", "append-only file on, "
                + "appendfsync " + (appendfsync == null ? "not readable (CONFIG GET refused)" : appendfsync)
                + ("always".equals(appendfsync) ? "" : ": a crash of the host can lose up to the last second of keys"));
    }

    private void replicas(Map<String, String> replication, int replicaAcks, String minReplicasToWrite) {
        int connected = number(replication.get("connected_slaves"));
        if (connected < replicaAcks) {
            add(FAIL, "replicas", connected + " replica(s) connected, fewer than replica-acks " + replicaAcks + ": "
                    + "every keyed request that takes a key is answered 503 -> connect replicas or lower replica-acks");
        } else if (connected == 0) {
            add(WARN, "replicas", "no replica: a crash of this server loses the keys until it is back, "
                    + "and those it had not persisted for good");
        } else {
            add(OK, "replicas", connected + " replica(s) connected" + (replicaAcks == 0
                    ? "; replication is asynchronous, and replica-acks is 0: a failover may lose the latest keys"
                    : ", replica-acks " + replicaAcks));
        }
        if (connected > 0 && "0".equals(minReplicasToWrite)) {
            add(WARN, "min-replicas", "min-replicas-to-write is 0: a master cut off from its replicas "
                    + "keeps taking writes that a failover then drops -> min-replicas-to-write 1, "
                    + "min-replicas-max-lag 10");
        }
    }

    private void layout(byte[] marker, KeyLayout layout, SchemaMode mode) {
        String prefix = layout.prefix();
        if (marker == null) {
            add(mode == SchemaMode.CREATE ? WARN : FAIL, "schema", "no store with prefix '"
                    + prefix + "' yet" + (mode == SchemaMode.CREATE ? "; the agent writes it on its first keyed request"
                    + " (schema mode create)" : " and schema mode is " + mode.name().toLowerCase(java.util.Locale.ROOT)
                    + " -> run the agent once with schema mode create, or check the table setting (the prefix)"));
            return;
        }
        String found = new String(marker, StandardCharsets.UTF_8);
        if (KeyLayout.VERSION.equals(found)) {
            add(OK, "schema", "prefix '" + prefix + "' holds layout " + found);
        } else {
            add(FAIL, "schema", "prefix '" + prefix + "' holds layout '" + found + "', which this version"
                    + " does not read (it writes '" + KeyLayout.VERSION + "')");
        }
    }

    private static int number(String text) {
        try {
            return text == null ? 0 : Integer.parseInt(text);
        } catch (NumberFormatException e) {
            return 0;
        }
    }

    private void add(Finding.Level level, String check, String message) {
        findings.add(new Finding(level, check, message));
    }
}
