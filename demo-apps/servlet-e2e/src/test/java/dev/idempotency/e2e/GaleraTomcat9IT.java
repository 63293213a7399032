package dev.idempotency.e2e;

import dev.idempotency.e2e.support.Client;
import dev.idempotency.e2e.support.KeyedPayments;
import dev.idempotency.e2e.servers.ServerProcess;
import dev.idempotency.e2e.scenarios.ServerScenarios;
import dev.idempotency.e2e.servers.TomcatServer;
import dev.idempotency.store.testing.Await;
import dev.idempotency.store.testing.GaleraCluster;
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
 * Two stock Tomcat 9 servers with the agent on one three-node MariaDB Galera cluster made by the test: the first pinned
 * to node 1, the second on MariaDB Connector/J's load-balancing URL across all three. Every key is sent to both servers
 * at once, so its duplicates meet on different nodes. Node 3 is killed with SIGKILL under that load. From the two
 * applications' own ledgers: no key charged twice, and every 201 a client received is replayed, byte for byte, by both.
 */
public class GaleraTomcat9IT {
    private static final int WORKERS = 6;
    private static final int KEYS_BEFORE_THE_KILL = 150;
    private static final int KEYS = 600;

    @Test
    public void duplicatesOverTwoServersAndThreeNodesRunOnceAndANodeKilledUnderLoadLosesNoAnswer() throws Exception {
        try (GaleraCluster cluster = GaleraCluster.start(3, 4);
             ServerProcess pinned = galeraTomcat(cluster.url(1));
             ServerProcess balanced = galeraTomcat(cluster.loadBalancedUrl())) {
            pinned.start();
            balanced.start();
            Client[] clients = {new Client(pinned.baseUrl()), new Client(balanced.baseUrl())};
            KeyedPayments payments = new KeyedPayments("galera-");
            Map<Integer, List<KeyedPayments.Outcome>> outcomes = new ConcurrentHashMap<>();
            AtomicInteger next = new AtomicInteger();
            AtomicInteger done = new AtomicInteger();
            AtomicLong killedAt = new AtomicLong(Long.MAX_VALUE);
            AtomicLong firstAnswerAfterKill = new AtomicLong(Long.MAX_VALUE);
            ExecutorService workers = Executors.newFixedThreadPool(WORKERS);
            ExecutorService pinnedSide = Executors.newFixedThreadPool(WORKERS);
            List<Future<?>> running = new ArrayList<>();
            for (int w = 0; w < WORKERS; w++) {
                running.add(workers.submit(() -> {
                    for (int n; (n = next.incrementAndGet()) <= KEYS; ) {
                        int key = n;
                        // The same key to both servers at once: one of the two runs the application, on its own node.
                        CompletableFuture<KeyedPayments.Outcome> viaPinned = CompletableFuture.supplyAsync(() -> answered(payments, clients[0], key), pinnedSide);
                        KeyedPayments.Outcome viaBalanced = answered(payments, clients[1], key);
                        List<KeyedPayments.Outcome> both = List.of(viaPinned.get(5, TimeUnit.MINUTES), viaBalanced);
                        outcomes.put(key, both);
                        done.incrementAndGet();
                        // Recovery is the load-balanced server's: the first charge it made itself after the kill.
                        HttpResponse<byte[]> balancedAnswer = viaBalanced.answer();
                        if (balancedAnswer.statusCode() == 201 && viaBalanced.answeredAt() > killedAt.get()
                                && balancedAnswer.headers().firstValue("Idempotent-Replayed").isEmpty()) {
                            firstAnswerAfterKill.accumulateAndGet(viaBalanced.answeredAt(), Math::min);
                        }
                    }
                    return null;
                }));
            }
            Await.until("keys answered before the kill", Duration.ofSeconds(180), done::get, n -> n >= KEYS_BEFORE_THE_KILL);
            killedAt.set(System.nanoTime());
            cluster.kill(3);
            try {
                for (Future<?> f : running) f.get(10, TimeUnit.MINUTES);
            } finally {
                workers.shutdownNow();
                pinnedSide.shutdownNow();
            }
            assertEquals(KEYS, outcomes.size());

            int unknown = 0;
            int refused = payments.refused.get();
            Map<Integer, Long> chargeOfKey = new ConcurrentHashMap<>();
            for (Map.Entry<Integer, List<KeyedPayments.Outcome>> e : outcomes.entrySet()) {
                HttpResponse<byte[]> first = e.getValue().get(0).answer();
                HttpResponse<byte[]> second = e.getValue().get(1).answer();
                if (first.statusCode() != 201 || second.statusCode() != 201) {
                    // outcome unknown on one server means the same key's answer was never recorded: unknown on both
                    assertTrue(first.statusCode() != 201 && second.statusCode() != 201,
                            "key " + e.getKey() + ": one server answered 201 and the other did not: " + ServerScenarios.text(first)
                                    + " / " + ServerScenarios.text(second));
                    unknown++;
                    continue;
                }
                assertArrayEquals(first.body(), second.body(), "key " + e.getKey() + ": both servers gave one answer");
                chargeOfKey.put(e.getKey(), KeyedPayments.chargeId(first));
                for (Client client : clients) {
                    HttpResponse<byte[]> replay = client.send(payments.payment(client, e.getKey()));
                    assertEquals(201, replay.statusCode(), "key " + e.getKey() + ": " + ServerScenarios.text(replay));
                    assertArrayEquals(first.body(), replay.body(), "key " + e.getKey() + " replayed byte for byte");
                }
            }
            pinned.stop();
            balanced.stop();
            Map<Long, List<Long>> chargesByAmount = KeyedPayments.ledgerCharges(pinned, balanced);
            long duplicates = chargesByAmount.values().stream().filter(ids -> ids.size() > 1).count();
            long backAfterMillis = TimeUnit.NANOSECONDS.toMillis(firstAnswerAfterKill.get() - killedAt.get());
            System.out.printf("galera through two Tomcats: %d keys sent to both, %d answered 201 by both, %d outcome unknown,"
                            + " %d duplicate charges, %d charges in all, %d answers of 503 on the way, the load-balanced server's"
                            + " first new charge %d ms after the kill%n",
                    KEYS, chargeOfKey.size(), unknown, duplicates, chargesByAmount.values().stream().mapToInt(List::size).sum(),
                    refused, backAfterMillis);
            assertEquals(0, duplicates, "no key may be charged twice, whichever server and node its duplicates met");
            for (Map.Entry<Integer, Long> e : chargeOfKey.entrySet()) {
                assertEquals(List.of(e.getValue()), chargesByAmount.get((long) e.getKey()), "key " + e.getKey());
            }
            assertTrue(firstAnswerAfterKill.get() != Long.MAX_VALUE && backAfterMillis < 30_000,
                    "the load-balanced server charges again within 30 s of the kill; took " + backAfterMillis + " ms");
        }
    }

    private static KeyedPayments.Outcome answered(KeyedPayments payments, Client client, int key) {
        try {
            return payments.untilAnswered(client, key);
        } catch (Exception e) {
            throw new IllegalStateException(e);
        }
    }

    private static ServerProcess galeraTomcat(String url) throws Exception {
        return TomcatServer.tomcat9()
                .set("idempotency.store.url", url)
                .set("idempotency.store.connect-timeout", "2s")
                .set("idempotency.store.query-timeout", "3s")
                .set("idempotency.lease", "10s");
    }
}
