package dev.idempotency.store.redis;

import dev.idempotency.store.Reservation;
import dev.idempotency.store.Reservation.Outcome;
import dev.idempotency.store.StoreConfigurationException;
import dev.idempotency.store.StoreSettings;
import dev.idempotency.store.StoreUnavailableException;
import dev.idempotency.store.StoredResponse;
import dev.idempotency.store.testing.Await;
import dev.idempotency.store.testing.LocalServers;
import org.junit.jupiter.api.Test;
import redis.clients.jedis.HostAndPort;
import redis.clients.jedis.Jedis;
import redis.clients.jedis.params.ClientKillParams;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Redis Cluster, on clusters of the tests' own (three masters, a replica each, from the installed redis-server): keys
 * spread over every master, racing stores agree on one owner, a master killed and its replica promoted, a slot moved
 * from one master to another under load, and what the store refuses to start on.
 */
class RedisClusterTest {
    private static final StoredResponse PAID = new StoredResponse(201,
            Collections.singletonList(new StoredResponse.Header("Content-Type", "application/json")),
            "{\"paid\":true}".getBytes(StandardCharsets.UTF_8));

    private static StoreSettings.Builder settings(String url, String prefix) {
        return StoreSettings.builder().url(url).table(prefix).connectTimeout(Duration.ofSeconds(2))
                .queryTimeout(Duration.ofSeconds(2));
    }

    /** A key of {@code scope} whose bucket is {@code bucket}, the n-th such. */
    private static String keyInBucket(String scope, int bucket, int n) {
        int found = 0;
        for (int i = 0; ; i++) {
            String key = "k-" + i;
            if (KeyLayout.bucket(KeyLayout.id(scope, key)) == bucket && found++ == n) return key;
        }
    }

    @Test
    void keysSpreadOverEveryMasterAndStoresRacingForOneKeyAgreeOnOneOwner() throws Exception {
        String url = RedisClusterTestServer.url();
        String prefix = RedisTestServer.randomPrefix();
        try (RedisIdempotencyStore a = RedisIdempotencyStore.open(settings(url, prefix).build());
             RedisIdempotencyStore b = RedisIdempotencyStore.open(settings(url, prefix).build())) {
            a.checkSchema();
            for (int i = 0; i < 64; i++) {
                Reservation r = a.reserve("t", "spread-" + i, "fp");
                assertEquals(Outcome.ACQUIRED, r.outcome());
                assertTrue(a.complete(r.token(), PAID));
            }
            List<HostAndPortCount> perMaster = new ArrayList<>();
            for (redis.clients.jedis.HostAndPort master : a.connections().masters("test")) {
                try (Jedis j = new Jedis(master)) {
                    long held = j.keys(prefix + "*").size() + j.keys("{" + prefix + "*").size();
                    perMaster.add(new HostAndPortCount(master.toString(), held));
                }
            }
            assertEquals(3, perMaster.size(), "three masters: " + perMaster);
            for (HostAndPortCount m : perMaster) assertTrue(m.count > 0, "every master holds keys: " + perMaster);
            assertEquals(Outcome.REPLAY, b.reserve("t", "spread-7", "fp").outcome(), "another store replays");

            int racers = 16;
            CyclicBarrier start = new CyclicBarrier(racers);
            ExecutorService pool = Executors.newFixedThreadPool(racers);
            try {
                List<Future<Outcome>> outcomes = new ArrayList<>();
                for (int i = 0; i < racers; i++) {
                    RedisIdempotencyStore store = i % 2 == 0 ? a : b;
                    outcomes.add(pool.submit(() -> {
                        start.await();
                        return store.reserve("t", "raced", "fp").outcome();
                    }));
                }
                int acquired = 0;
                for (Future<Outcome> o : outcomes) if (o.get() == Outcome.ACQUIRED) acquired++;
                assertEquals(1, acquired, "one owner among " + racers + " racing reservations on two stores");
            } finally {
                pool.shutdownNow();
            }

            List<RedisDiagnosis.Finding> findings = RedisDiagnosis.of(a, a.settings());
            long servers = findings.stream().filter(f -> f.check.equals("server")).count();
            assertEquals(3, servers, "doctor looks at each master");
            assertTrue(findings.stream().anyMatch(f -> f.check.equals("cluster")
                    && f.level == RedisDiagnosis.Finding.Level.OK), "the cluster's state is ok");
        } finally {
            RedisClusterTestServer.dropPrefix(prefix);
        }
    }

    @Test
    void aConnectionBrokenOnOneMasterLeavesTheOtherMastersPooledConnectionsAlone() throws Exception {
        String url = RedisClusterTestServer.url();
        String prefix = RedisTestServer.randomPrefix();
        try (RedisIdempotencyStore store = RedisIdempotencyStore.open(settings(url, prefix).build())) {
            store.checkSchema();
            // One after another: a pooled connection to every master, idle between the requests.
            for (int i = 0; i < 64; i++) assertEquals(Outcome.ACQUIRED, store.reserve("t", "warm-" + i, "fp").outcome());
            List<HostAndPort> masters = store.connections().masters("test");
            assertEquals(3, masters.size(), "three masters: " + masters);
            HostAndPort broken = masters.get(0);
            Map<String, Long> closedBefore = store.connections().requestConnectionsClosed();
            int killed = 0;
            try (Jedis admin = new Jedis(broken)) {
                for (String client : admin.clientList().split("\n")) {
                    if (!client.contains(" name=idempotency-store ")) continue;
                    long id = Long.parseLong(client.substring(client.indexOf("id=") + 3, client.indexOf(' ')));
                    killed += admin.clientKill(ClientKillParams.clientKillParams().id(Long.toString(id))) > 0 ? 1 : 0;
                }
            }
            assertTrue(killed > 0, "the store's connections to " + broken + " were closed by the server");
            // Every master again: the requests on the closed connections are sent again on new ones.
            for (int i = 0; i < 64; i++) assertEquals(Outcome.ACQUIRED, store.reserve("t", "after-" + i, "fp").outcome());
            Map<String, Long> closedAfter = store.connections().requestConnectionsClosed();
            for (HostAndPort master : masters) {
                String node = master.toString();
                long closed = closedAfter.get(node) - closedBefore.getOrDefault(node, 0L);
                if (master.equals(broken)) {
                    assertTrue(closed >= 1, "the broken connections to " + node + " were closed: " + closedAfter);
                } else {
                    assertEquals(0, closed, "the idle connections to " + node + ", which the server kept, were kept: "
                            + closedBefore + " then " + closedAfter);
                }
            }
        } finally {
            RedisClusterTestServer.dropPrefix(prefix);
        }
    }

    private static final class HostAndPortCount {
        final String node;
        final long count;

        HostAndPortCount(String node, long count) {
            this.node = node;
            this.count = count;
        }

        @Override
        public String toString() { return node + "=" + count; }
    }

    @Test
    void aClusterNodeNamedAsAStandaloneServerIsRefusedAtStartUp() {
        String url = RedisClusterTestServer.url();
        String oneNode = "redis://" + url.substring("redis-cluster://".length()).split(",")[0];
        try (RedisIdempotencyStore store = RedisIdempotencyStore.open(settings(oneNode, "x").build())) {
            StoreConfigurationException e = assertThrows(StoreConfigurationException.class, store::checkSchema);
            assertTrue(e.getMessage().contains("redis-cluster://"), e.getMessage());
        }
    }

    @Test
    void seedNodesThatDoNotAnswerLeaveTheStoreUnopenedAndSaySo() throws Exception {
        int none = LocalServers.freePort();
        StoreUnavailableException e = assertThrows(StoreUnavailableException.class, () -> RedisIdempotencyStore.open(
                settings("redis-cluster://127.0.0.1:" + none, "x").build()).close());
        assertTrue(e.getMessage().contains("127.0.0.1:" + none) && e.getMessage().contains("seed"), e.getMessage());
    }

    /**
     * SIGKILL of the master of a key's slot: reservations there fail closed until its replica is promoted, then
     * succeed on it; the key completed (and acknowledged by the replica, replica-acks=1) before the crash replays.
     */
    @Test
    void aKilledMastersReplicaTakesOverAndKeepsWhatItAcknowledged() throws Exception {
        try (OwnRedisCluster cluster = OwnRedisCluster.start()) {
            String prefix = RedisTestServer.randomPrefix();
            int bucket = 5;
            OwnRedis master = cluster.masterOf(OwnRedisCluster.slotOfBucket(prefix, bucket));
            String paid = keyInBucket("t", bucket, 0);
            String next = keyInBucket("t", bucket, 1);
            try (RedisIdempotencyStore acknowledged = RedisIdempotencyStore.open(settings(cluster.url(), prefix)
                    .replicaAcks(1).build());
                 RedisIdempotencyStore store = RedisIdempotencyStore.open(settings(cluster.url(), prefix).build())) {
                acknowledged.checkSchema();
                Reservation first = acknowledged.reserve("t", paid, "fp");
                assertEquals(Outcome.ACQUIRED, first.outcome());
                assertTrue(acknowledged.complete(first.token(), PAID), "the replica acknowledged the response");

                // A key held on another master, its lease to be renewed while this one is down.
                int elsewhere = bucket + 1;
                while (cluster.masterOf(OwnRedisCluster.slotOfBucket(prefix, elsewhere)) == master) elsewhere++;
                String held = keyInBucket("t", elsewhere, 0);
                Reservation holding = store.reserve("t", held, "fp");
                Reservation onKilled = store.reserve("t", keyInBucket("t", bucket, 3), "fp");
                OwnRedis other = cluster.masterOf(OwnRedisCluster.slotOfBucket(prefix, elsewhere));
                String leaseBefore;
                try (Jedis j = other.connect()) {
                    leaseBefore = j.hget(RedisTestServer.hashKey(prefix, "t", held), "lease");
                }

                master.kill();
                assertThrows(StoreUnavailableException.class,
                        () -> store.renew(List.of(onKilled.token(), holding.token())), "a master is away");
                try (Jedis j = other.connect()) {
                    long leaseAfter = Long.parseLong(j.hget(RedisTestServer.hashKey(prefix, "t", held), "lease"));
                    assertTrue(leaseAfter > Long.parseLong(leaseBefore),
                            "the lease on the master still up was renewed all the same");
                }
                List<StoreUnavailableException> refusals = new ArrayList<>();
                Reservation after = Await.until("a reservation on the promoted replica", Duration.ofSeconds(60), () -> {
                    try {
                        return store.reserve("t", next, "fp");
                    } catch (StoreUnavailableException noMasterYet) {
                        refusals.add(noMasterYet);
                        return null;
                    }
                }, r -> r != null);
                assertEquals(Outcome.ACQUIRED, after.outcome());
                assertFalse(refusals.isEmpty(), "between the crash and the promotion the store answered unavailable");
                assertTrue(cluster.masterOf(OwnRedisCluster.slotOfBucket(prefix, bucket)) != master, "the replica was promoted");

                Reservation retry = store.reserve("t", paid, "fp");
                assertEquals(Outcome.REPLAY, retry.outcome(), "the key completed before the crash replays");
                assertArrayEquals(PAID.body(), retry.response().body());
                assertTrue(store.complete(after.token(), PAID), "the new master takes completions");
                StoreUnavailableException alone = assertThrows(StoreUnavailableException.class,
                        () -> acknowledged.reserve("t", keyInBucket("t", bucket, 2), "fp"),
                        "the promoted master has no replica left to acknowledge: replica-acks=1 fails closed");
                assertTrue(alone.getMessage().contains("acknowledged by 0 of the 1"), alone.getMessage());
            }
        }
    }

    /**
     * A bucket's slot moved key by key from its master to another (CLUSTER SETSLOT, MIGRATE) while a client reserves,
     * completes and replays keys of that bucket: while the slot migrates, its scripts are answered TRYAGAIN (some of
     * their keys moved, or missing, as an empty index is) and the store waits up to the query timeout, then answers
     * unavailable (503); once the slot is the target's, MOVED is followed. Every answer is the right one or unavailable, never another, and every completed key replays.
     */
    @Test
    void aSlotMovedUnderLoadKeepsEveryAnswerRight() throws Exception {
        try (OwnRedisCluster cluster = OwnRedisCluster.start()) {
            String prefix = RedisTestServer.randomPrefix();
            int bucket = 9;
            int slot = OwnRedisCluster.slotOfBucket(prefix, bucket);
            OwnRedis target = cluster.otherMasterThan(slot);
            try (RedisIdempotencyStore store = RedisIdempotencyStore.open(settings(cluster.url(), prefix)
                    .queryTimeout(Duration.ofSeconds(1)).build())) {
                store.checkSchema();
                for (int i = 0; i < 20; i++) { // keys in the slot before the migration starts
                    Reservation r = store.reserve("t", keyInBucket("t", bucket, i), "fp");
                    assertTrue(store.complete(r.token(), PAID));
                }
                AtomicInteger operations = new AtomicInteger();
                AtomicInteger replayed = new AtomicInteger();
                AtomicInteger unavailable = new AtomicInteger();
                AtomicBoolean stop = new AtomicBoolean();
                List<Throwable> wrong = new CopyOnWriteArrayList<>();
                Map<String, Boolean> completed = new ConcurrentHashMap<>();
                ExecutorService load = Executors.newSingleThreadExecutor();
                Future<?> running = load.submit(() -> {
                    for (int n = 20; !stop.get(); n++) {
                        String key = keyInBucket("t", bucket, n);
                        try {
                            Reservation old = store.reserve("t", keyInBucket("t", bucket, n % 20), "fp");
                            if (old.outcome() == Outcome.REPLAY) replayed.incrementAndGet();
                            else wrong.add(new AssertionError("key " + n % 20 + " answered " + old.outcome()));
                        } catch (StoreUnavailableException e) {
                            unavailable.incrementAndGet();
                        } catch (RuntimeException e) {
                            wrong.add(e);
                        }
                        try {
                            Reservation r = store.reserve("t", key, "fp");
                            if (r.outcome() != Outcome.ACQUIRED) {
                                wrong.add(new AssertionError(key + " new, answered " + r.outcome()));
                                continue;
                            }
                            if (store.complete(r.token(), PAID)) completed.put(key, true);
                            else wrong.add(new AssertionError(key + " completion lost"));
                            Reservation again = store.reserve("t", key, "fp");
                            if (again.outcome() != Outcome.REPLAY) {
                                wrong.add(new AssertionError(key + " retried, answered " + again.outcome()));
                            }
                        } catch (StoreUnavailableException e) {
                            unavailable.incrementAndGet();
                        } catch (RuntimeException e) {
                            wrong.add(e);
                        }
                        operations.incrementAndGet();
                    }
                });
                int moves = cluster.migrateSlot(slot, target, () -> {
                    int before = operations.get();
                    Await.until("the load to go on after a key moved", Duration.ofSeconds(30), operations::get,
                            done -> done > before);
                });
                assertTrue(moves >= 5, "keys of the slot moved a few at a time: " + moves);
                int atEnd = operations.get();
                Await.until("the load to go on after the slot moved", Duration.ofSeconds(30), operations::get,
                        done -> done > atEnd + 5);
                stop.set(true);
                running.get();
                load.shutdown();
                assertTrue(wrong.isEmpty(), "every answer right or unavailable: " + wrong);
                assertTrue(cluster.masterOf(slot) == target, "the slot is the target's");
                for (int i = 0; i < 20; i++) {
                    assertEquals(Outcome.REPLAY, store.reserve("t", keyInBucket("t", bucket, i), "fp").outcome());
                }
                for (String key : completed.keySet()) {
                    assertEquals(Outcome.REPLAY, store.reserve("t", key, "fp").outcome(), key);
                }
                System.out.println("slot migration: " + operations.get() + " rounds, " + replayed.get() + " replays, "
                        + completed.size() + " new keys completed, " + unavailable.get() + " unavailable");
            }
        }
    }
}
