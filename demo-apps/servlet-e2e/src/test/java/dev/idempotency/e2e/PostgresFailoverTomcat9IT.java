package dev.idempotency.e2e;

import dev.idempotency.e2e.support.Client;
import dev.idempotency.e2e.support.KeyedPayments;
import dev.idempotency.e2e.servers.ServerProcess;
import dev.idempotency.e2e.scenarios.ServerScenarios;
import dev.idempotency.e2e.servers.TomcatServer;
import dev.idempotency.store.testing.Await;
import dev.idempotency.store.testing.PostgresNode;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Stock Tomcat 9 with the agent on a PostgreSQL primary and its synchronous standby, both made by the test, reached
 * through one multi-host URL. Eight clients send keyed payments, retrying each key on 503 and 409 as real clients do,
 * until it gets its answer. The primary is killed with SIGKILL and the standby promoted. Then, from the application's
 * own ledger: no key charged twice; every 201 a client received is replayed byte for byte; service resumed by itself.
 */
public class PostgresFailoverTomcat9IT {
    private static final int CLIENTS = 8;
    private static final int KEYS_BEFORE_THE_KILL = 600;
    private static final int KEYS = 2400;

    private Path base;
    private final List<PostgresNode> nodes = new ArrayList<>();

    @AfterEach
    public void tearDown() throws Exception {
        for (PostgresNode node : nodes) node.close();
        PostgresNode.removeAll(base);
    }

    @Test
    public void killingThePrimaryUnderLoadChargesNoKeyTwiceAndLosesNoAnswer() throws Exception {
        base = PostgresNode.baseDirectory("idem-e2e-failover");
        PostgresNode primary = PostgresNode.primary(base, "primary", "synchronous_standby_names = 'standby1'");
        nodes.add(primary);
        PostgresNode standby = PostgresNode.standbyOf(primary, "standby1", "synchronous_standby_names = ''");
        nodes.add(standby);
        String url = "jdbc:postgresql://" + primary.hostAndPort() + "," + standby.hostAndPort() + "/postgres?user=postgres";

        try (ServerProcess tomcat = TomcatServer.tomcat9()
                .set("idempotency.store.url", url)
                .set("idempotency.store.connect-timeout", "1s")
                .set("idempotency.store.query-timeout", "2s")
                // Completions meeting the outage are tried again for half of it (5 s), long enough for the promotion.
                .set("idempotency.lease", "10s")
                .set("idempotency.sweep-interval", "1s")) {
            tomcat.start();
            Client client = new Client(tomcat.baseUrl());
            KeyedPayments payments = new KeyedPayments("failover-");
            Map<Integer, KeyedPayments.Outcome> outcomes = new ConcurrentHashMap<>();
            AtomicInteger next = new AtomicInteger();
            AtomicInteger done = new AtomicInteger();
            AtomicLong firstAnswerAfterPromotion = new AtomicLong(Long.MAX_VALUE);
            AtomicLong promotedAt = new AtomicLong(Long.MAX_VALUE);
            AtomicBoolean failed = new AtomicBoolean();
            ExecutorService clients = Executors.newFixedThreadPool(CLIENTS);
            List<Future<?>> running = new ArrayList<>();
            for (int c = 0; c < CLIENTS; c++) {
                running.add(clients.submit(() -> {
                    for (int n; !failed.get() && (n = next.incrementAndGet()) <= KEYS; ) {
                        KeyedPayments.Outcome outcome = payments.untilAnswered(client, n);
                        outcomes.put(n, outcome);
                        done.incrementAndGet();
                        if (outcome.answer().statusCode() == 201 && outcome.answeredAt() > promotedAt.get()) {
                            firstAnswerAfterPromotion.accumulateAndGet(outcome.answeredAt(), Math::min);
                        }
                    }
                    return null;
                }));
            }
            Await.until("keys answered before the kill", Duration.ofSeconds(120), done::get, n -> n >= KEYS_BEFORE_THE_KILL);
            long killedAt = System.nanoTime();
            primary.kill();
            // An orchestrator takes a moment to decide; meanwhile keyed requests must be refused, not run unprotected.
            Await.until("a keyed request to be refused while there is no primary", Duration.ofSeconds(60), payments.refused::get, n -> n > 0);
            standby.promote();
            promotedAt.set(System.nanoTime());
            try {
                for (Future<?> f : running) f.get(10, TimeUnit.MINUTES);
            } finally {
                failed.set(true);
                clients.shutdownNow();
            }
            assertEquals(KEYS, outcomes.size(), "every key got its final answer");

            // Every 201 a client received is replayed byte for byte by the new primary.
            Map<Integer, Long> chargeOfKey = new HashMap<>();
            int unknown = 0;
            int unavailable = 0;
            for (Map.Entry<Integer, KeyedPayments.Outcome> e : outcomes.entrySet()) {
                HttpResponse<byte[]> answer = e.getValue().answer();
                unavailable += e.getValue().unavailable();
                if (answer.statusCode() == 201) {
                    HttpResponse<byte[]> replay = client.send(payments.payment(client, e.getKey()));
                    assertEquals(201, replay.statusCode(), "key " + e.getKey() + ": " + ServerScenarios.text(replay));
                    assertEquals("true", replay.headers().firstValue("Idempotent-Replayed").orElse(null));
                    assertArrayEquals(answer.body(), replay.body(), "key " + e.getKey() + " replayed byte for byte");
                    chargeOfKey.put(e.getKey(), KeyedPayments.chargeId(answer));
                } else {
                    ServerScenarios.assertProblem(answer, 409, "outcome-unknown");
                    unknown++;
                }
            }
            tomcat.stop();
            String log = new String(java.nio.file.Files.readAllBytes(tomcat.log()), java.nio.charset.StandardCharsets.UTF_8);
            assertTrue(!log.contains("taken over or resolved"), "no request may lose its own key to the failover");

            // The application's own ledger, read from its file: each key's amount is the key's number.
            Map<Long, List<Long>> chargesByAmount = KeyedPayments.ledgerCharges(tomcat);
            int duplicates = 0;
            for (Map.Entry<Long, List<Long>> e : chargesByAmount.entrySet()) if (e.getValue().size() > 1) duplicates++;
            for (Map.Entry<Integer, Long> e : chargeOfKey.entrySet()) {
                assertEquals(Collections.singletonList(e.getValue()), chargesByAmount.get((long) e.getKey()),
                        "key " + e.getKey() + " charged once, by the request whose answer the client got");
            }
            long backAfterMillis = TimeUnit.NANOSECONDS.toMillis(firstAnswerAfterPromotion.get() - killedAt);
            System.out.printf("failover through Tomcat: %d keys, %d answered 201, %d outcome unknown, %d duplicate charges,"
                            + " %d charges in all, %d answers of 503 on the way, first new 201 %d ms after the kill%n",
                    KEYS, chargeOfKey.size(), unknown, duplicates, chargesByAmount.values().stream().mapToInt(List::size).sum(),
                    unavailable, backAfterMillis);
            assertEquals(0, duplicates, "no key may be charged twice");
            assertTrue(chargesByAmount.size() <= KEYS);
            assertTrue(firstAnswerAfterPromotion.get() != Long.MAX_VALUE && backAfterMillis < 20_000,
                    "service resumes by itself within 20 s of the kill; took " + backAfterMillis + " ms");
        }
    }
}
