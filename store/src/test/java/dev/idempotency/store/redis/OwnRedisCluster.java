package dev.idempotency.store.redis;

import dev.idempotency.store.testing.Await;
import dev.idempotency.store.testing.LocalServers;
import redis.clients.jedis.HostAndPort;
import redis.clients.jedis.Jedis;
import redis.clients.jedis.JedisCluster;
import redis.clients.jedis.exceptions.JedisException;
import redis.clients.jedis.params.MigrateParams;
import redis.clients.jedis.util.JedisClusterCRC16;

import java.io.File;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

/**
 * A Redis Cluster of a test's own: three masters with a replica each, from the installed redis-server, on loopback
 * ports, put together by {@code redis-cli --cluster create}; no persistence, a node considered failed after one second.
 * What tests do to it: find a slot's master, kill a master, move a slot from one master to another.
 */
public final class OwnRedisCluster implements AutoCloseable {
    private static final int NODES = 6;

    public final List<OwnRedis> nodes = new ArrayList<>();
    private final Path dir;

    /** Each node's cluster bus port, by its port: a node started again keeps both. */
    private final Map<Integer, Integer> busPorts = new HashMap<>();

    private OwnRedisCluster(Path dir) {
        this.dir = dir;
    }

    public static OwnRedisCluster start() throws Exception {
        if (!OwnRedis.installed()) LocalServers.unavailable("redis-server is not installed");
        if (OwnRedis.onPath("redis-cli") == null) LocalServers.unavailable("redis-cli is not installed (Debian package redis-tools)");
        OwnRedisCluster cluster = new OwnRedisCluster(Files.createTempDirectory("own-redis-cluster"));
        try {
            for (int i = 0; i < NODES; i++) cluster.nodes.add(cluster.newNode());
            List<String> create = new ArrayList<>(Arrays.asList("redis-cli", "--cluster", "create"));
            for (OwnRedis n : cluster.nodes) create.add("127.0.0.1:" + n.port);
            create.addAll(Arrays.asList("--cluster-replicas", "1", "--cluster-yes"));
            File log = cluster.dir.resolve("create.log").toFile();
            Process p = new ProcessBuilder(create).redirectErrorStream(true).redirectOutput(log).start();
            if (!p.waitFor(60, TimeUnit.SECONDS) || p.exitValue() != 0) {
                throw new IllegalStateException("redis-cli --cluster create failed: "
                        + new String(Files.readAllBytes(log.toPath()), StandardCharsets.UTF_8));
            }
            for (OwnRedis n : cluster.nodes) {
                Await.until("node " + n.port + " to see the cluster ok with its replicas", Duration.ofSeconds(30),
                        () -> cluster.settled(n), ok -> ok);
            }
            return cluster;
        } catch (Exception | Error e) {
            cluster.close();
            throw e;
        }
    }

    /**
     * A node on two free ports, tried again on others if one was taken meanwhile: the default bus port (the port +
     * 10000) was once taken (CI, 2026-11-29), which is why the bus port is chosen too.
     */
    private OwnRedis newNode() throws Exception {
        return OwnRedis.onAFreePort(this::node);
    }

    /**
     * A node on {@code port}, its data in a directory of its own: its cluster configuration file is kept in the
     * cluster's, so a node started again there rejoins.
     */
    private OwnRedis node(int port) throws Exception {
        Integer bus = busPorts.get(port);
        if (bus == null) busPorts.put(port, bus = LocalServers.freePort());
        return OwnRedis.startOn(port, "--cluster-enabled", "yes", "--cluster-port", Integer.toString(bus),
                "--cluster-config-file",
                dir.resolve("nodes-" + port + ".conf").toString(), "--cluster-node-timeout", "1000",
                "--maxmemory-policy", "noeviction");
    }

    /**
     * A killed node started again on its port, empty (no persistence), with its cluster identity: once the cluster
     * promoted its replica, it rejoins as that master's replica and copies it.
     */
    public OwnRedis restart(OwnRedis killed) throws Exception {
        int index = nodes.indexOf(killed);
        if (index < 0) throw new IllegalArgumentException("not a node of this cluster: " + killed.port);
        OwnRedis again = node(killed.port);
        nodes.set(index, again);
        return again;
    }

    /** The node says the cluster is ok, and (a master) has its replica in sync, acknowledging writes. */
    private boolean settled(OwnRedis node) {
        try (Jedis j = node.connect()) {
            if (!j.clusterInfo().contains("cluster_state:ok")) return false;
            String replication = j.info("replication");
            return !replication.contains("role:master")
                    || replication.contains("connected_slaves:1") && replication.contains("state=online");
        } catch (JedisException notYet) {
            return false;
        }
    }

    public String url() {
        StringBuilder url = new StringBuilder("redis-cluster://");
        for (int i = 0; i < NODES; i++) url.append(i == 0 ? "" : ",").append("127.0.0.1:").append(nodes.get(i).port);
        return url.toString();
    }

    /** A client of the test's own, routing by slot (never the store's code). */
    public JedisCluster client() {
        Set<HostAndPort> seeds = new HashSet<>();
        for (OwnRedis n : nodes) seeds.add(new HostAndPort("127.0.0.1", n.port));
        return new JedisCluster(seeds);
    }

    /** The node that is master of {@code slot} now, asked of a live node. */
    public OwnRedis masterOf(int slot) {
        for (OwnRedis asked : nodes) {
            try (Jedis j = asked.connect()) {
                for (Object range : j.clusterSlots()) {
                    List<?> r = (List<?>) range;
                    if ((Long) r.get(0) <= slot && slot <= (Long) r.get(1)) {
                        long port = (Long) ((List<?>) r.get(2)).get(1);
                        return nodes.stream().filter(n -> n.port == port).findFirst().orElseThrow(
                                () -> new IllegalStateException("slot " + slot + " on an unknown port " + port));
                    }
                }
            } catch (JedisException dead) {
                // ask another
            }
        }
        throw new IllegalStateException("no live node knows the master of slot " + slot);
    }

    /** A master that does not serve {@code slot}. */
    public OwnRedis otherMasterThan(int slot) {
        OwnRedis owner = masterOf(slot);
        for (OwnRedis n : nodes) {
            if (n == owner) continue;
            try (Jedis j = n.connect()) {
                if (j.info("replication").contains("role:master")) return n;
            } catch (JedisException dead) {
                // not this one
            }
        }
        throw new IllegalStateException("no other master");
    }

    /**
     * Moves {@code slot} from its master to {@code target} a few keys at a time (CLUSTER SETSLOT IMPORTING and
     * MIGRATING, then MIGRATE), running {@code afterEachMove} after each (a test waits there for its load to go on),
     * and at the end gives the slot to the target on every master. Returns how many moves it took.
     */
    public int migrateSlot(int slot, OwnRedis target, Runnable afterEachMove) {
        OwnRedis source = masterOf(slot);
        String targetId = nodeId(target);
        int moves = 0;
        try (Jedis src = source.connect(); Jedis dst = target.connect()) {
            dst.clusterSetSlotImporting(slot, nodeId(source));
            src.clusterSetSlotMigrating(slot, targetId);
            for (List<String> keys; !(keys = src.clusterGetKeysInSlot(slot, 4)).isEmpty(); moves++) {
                src.migrate("127.0.0.1", target.port, 0, 5000, new MigrateParams(), keys.toArray(new String[0]));
                afterEachMove.run();
            }
        }
        for (OwnRedis node : nodes) {
            try (Jedis j = node.connect()) {
                if (j.info("replication").contains("role:master")) j.clusterSetSlotNode(slot, targetId);
            } catch (JedisException dead) {
                // a node killed by the test learns the slot's owner from the others when it comes back
            }
        }
        return moves;
    }

    /** The slot of a Redis store's bucket: all of the bucket's keys share its hash tag. */
    public static int slotOfBucket(String prefix, int bucket) {
        return JedisClusterCRC16.getSlot(new KeyLayout(prefix).counts(bucket));
    }

    public static int slotOf(String key) {
        return JedisClusterCRC16.getSlot(key);
    }

    public static String nodeId(OwnRedis node) {
        try (Jedis j = node.connect()) {
            return j.clusterMyId();
        }
    }

    @Override
    public void close() throws Exception {
        for (OwnRedis n : nodes) n.close();
        try (Stream<Path> files = Files.walk(dir)) {
            files.sorted(Comparator.reverseOrder()).map(Path::toFile).forEach(File::delete);
        }
    }
}
