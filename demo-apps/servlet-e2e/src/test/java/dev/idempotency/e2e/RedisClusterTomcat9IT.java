package dev.idempotency.e2e;

import dev.idempotency.e2e.scenarios.ServerScenarios;
import dev.idempotency.e2e.servers.ServerProcess;
import dev.idempotency.e2e.servers.TomcatServer;
import dev.idempotency.e2e.support.Client;
import dev.idempotency.e2e.support.KeyedPayments;
import dev.idempotency.store.redis.OwnRedis;
import dev.idempotency.store.redis.OwnRedisCluster;
import dev.idempotency.store.redis.RedisTestServer;
import dev.idempotency.store.testing.Await;
import org.junit.jupiter.api.Test;

import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Two stock Tomcat 9 servers with the agent on one Redis Cluster made by the test (three masters, a replica each,
 * {@code replica-acks=1}). Every key is sent to both servers at once, so its duplicates race on the key's master from
 * two JVMs. A master is killed with SIGKILL under that load; the cluster promotes its replica; the killed node comes
 * back empty and rejoins as the new master's replica. Later, still under load, one of the store's buckets has its slot
 * moved to another master a few keys at a time (MOVED and TRYAGAIN on the way). From the two applications' own
 * ledgers: no key charged twice, and every 201 a client received is replayed, byte for byte, by both servers.
 */
public class RedisClusterTomcat9IT {
    private static final int WORKERS = 6;
    private static final int KEYS_BEFORE_THE_KILL = 300;
    private static final int KEYS_BEFORE_THE_MIGRATION = 600;
    private static final int MIGRATED_BUCKET = 9;
    private static final int KEYS = 1200;

    @Test
    public void duplicatesOverTwoServersRunOnceAndAMasterKilledOrASlotMovedUnderLoadLosesNoAnswer() throws Exception {
        String prefix = RedisTestServer.randomPrefix();
        try (OwnRedisCluster cluster = OwnRedisCluster.start();
             ServerProcess first = clusterTomcat(cluster.url(), prefix);
             ServerProcess second = clusterTomcat(cluster.url(), prefix)) {
            first.start();
            second.start();
            Client[] clients = {new Client(first.baseUrl()), new Client(second.baseUrl())};
            KeyedPayments payments = new KeyedPayments("cluster-");
            Map<Integer, List<KeyedPayments.Outcome>> outcomes = new ConcurrentHashMap<>();
            AtomicInteger next = new AtomicInteger();
            AtomicInteger done = new AtomicInteger();
            AtomicLong killedAt = new AtomicLong(Long.MAX_VALUE);
            AtomicLong firstAnswerAfterKill = new AtomicLong(Long.MAX_VALUE);
            ExecutorService workers = Executors.newFixedThreadPool(WORKERS);
            ExecutorService firstSide = Executors.newFixedThreadPool(WORKERS);
            List<Future<?>> running = new ArrayList<>();
            for (int w = 0; w < WORKERS; w++) {
                running.add(workers.submit(() -> {
                    for (int n; (n = next.incrementAndGet()) <= KEYS; ) {
                        int key = n;
                        long sentAt = System.nanoTime();
                        // The same key to both servers at once: one of the two runs the application.
                        CompletableFuture<KeyedPayments.Outcome> viaFirst =
                                CompletableFuture.supplyAsync(() -> answered(payments, clients[0], key), firstSide);
                        KeyedPayments.Outcome viaSecond = answered(payments, clients[1], key);
                        List<KeyedPayments.Outcome> both = List.of(viaFirst.get(5, TimeUnit.MINUTES), viaSecond);
                        outcomes.put(key, both);
                        done.incrementAndGet();
                        if (viaSecond.answer().statusCode() == 201 && sentAt > killedAt.get()) {
                            firstAnswerAfterKill.accumulateAndGet(viaSecond.answeredAt(), Math::min);
                        }
                    }
                    return null;
                }));
            }
            Await.until("keys answered before the kill", Duration.ofSeconds(180), done::get,
                    n -> n >= KEYS_BEFORE_THE_KILL);
            OwnRedis killed = cluster.masterOf(0);
            killedAt.set(System.nanoTime());
            killed.kill();
            Await.until("the cluster to promote the killed master's replica", Duration.ofSeconds(60),
                    () -> cluster.masterOf(0), master -> master != killed);
            cluster.restart(killed); // back empty only after the promotion: it rejoins as a replica
            Await.until("keys answered before the slot moves", Duration.ofSeconds(180), done::get,
                    n -> n >= KEYS_BEFORE_THE_MIGRATION);
            int slot = OwnRedisCluster.slotOfBucket(prefix, MIGRATED_BUCKET);
            OwnRedis target = cluster.otherMasterThan(slot);
            int refusedBefore = payments.refused.get();
            int moves = cluster.migrateSlot(slot, target, () -> {
                int before = done.get();
                Await.until("the load to go on after keys moved", Duration.ofSeconds(30), done::get, n -> n > before);
            });
            int refusedDuringMigration = payments.refused.get() - refusedBefore;
            try {
                for (Future<?> f : running) f.get(10, TimeUnit.MINUTES);
            } finally {
                workers.shutdownNow();
                firstSide.shutdownNow();
            }
            assertEquals(KEYS, outcomes.size());
            assertTrue(cluster.masterOf(slot) == target, "the slot moved");
            assertTrue(moves >= 3, "the slot's keys moved a few at a time: " + moves + " moves");

            int unknown = 0;
            Map<Integer, Long> chargeOfKey = new ConcurrentHashMap<>();
            for (Map.Entry<Integer, List<KeyedPayments.Outcome>> e : outcomes.entrySet()) {
                HttpResponse<byte[]> a = e.getValue().get(0).answer();
                HttpResponse<byte[]> b = e.getValue().get(1).answer();
                if (a.statusCode() != 201 || b.statusCode() != 201) {
                    assertTrue(a.statusCode() != 201 && b.statusCode() != 201, "key " + e.getKey()
                            + ": one server answered 201 and the other did not: " + ServerScenarios.text(a) + " / "
                            + ServerScenarios.text(b));
                    unknown++;
                    continue;
                }
                assertArrayEquals(a.body(), b.body(), "key " + e.getKey() + ": both servers gave one answer");
                chargeOfKey.put(e.getKey(), KeyedPayments.chargeId(a));
                for (Client client : clients) {
                    HttpResponse<byte[]> replay = client.send(payments.payment(client, e.getKey()));
                    assertEquals(201, replay.statusCode(), "key " + e.getKey() + ": " + ServerScenarios.text(replay));
                    assertArrayEquals(a.body(), replay.body(), "key " + e.getKey() + " replayed byte for byte");
                }
            }
            first.stop();
            second.stop();
            Map<Long, List<Long>> chargesByAmount = KeyedPayments.ledgerCharges(first, second);
            long duplicates = chargesByAmount.values().stream().filter(ids -> ids.size() > 1).count();
            long backAfterMillis = TimeUnit.NANOSECONDS.toMillis(firstAnswerAfterKill.get() - killedAt.get());
            System.out.printf("Redis Cluster through two Tomcats, replica-acks=1: %d keys sent to both, %d answered 201"
                            + " by both, %d outcome unknown, %d duplicate charges, %d charges in all, %d answers of 503"
                            + " on the way (%d while a slot moved in %d moves), first 201 of a key sent after the"
                            + " kill %d ms after it%n",
                    KEYS, chargeOfKey.size(), unknown, duplicates,
                    chargesByAmount.values().stream().mapToInt(List::size).sum(), payments.refused.get(),
                    refusedDuringMigration, moves, backAfterMillis);
            assertEquals(0, duplicates, "no key may be charged twice, whichever server its duplicates met");
            for (Map.Entry<Integer, Long> e : chargeOfKey.entrySet()) {
                assertEquals(List.of(e.getValue()), chargesByAmount.get((long) e.getKey()), "key " + e.getKey());
            }
            assertTrue(firstAnswerAfterKill.get() != Long.MAX_VALUE && backAfterMillis < 30_000,
                    "service resumes within 30 s of the kill; took " + backAfterMillis + " ms");
        }
    }

    private static KeyedPayments.Outcome answered(KeyedPayments payments, Client client, int key) {
        try {
            return payments.untilAnswered(client, key);
        } catch (Exception e) {
            throw new IllegalStateException(e);
        }
    }

    private static ServerProcess clusterTomcat(String url, String prefix) throws Exception {
        return TomcatServer.tomcat9()
                .set("idempotency.store.url", url)
                .set("idempotency.store.table", prefix)
                .set("idempotency.store.replica-acks", "1")
                .set("idempotency.store.connect-timeout", "1s")
                .set("idempotency.store.query-timeout", "2s")
                .set("idempotency.lease", "10s");
    }
}
