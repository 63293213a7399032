package dev.idempotency.e2e;

import dev.idempotency.e2e.scenarios.ServerScenarios;
import dev.idempotency.e2e.servers.ServerProcess;
import dev.idempotency.e2e.servers.TomcatServer;
import dev.idempotency.e2e.support.Client;
import dev.idempotency.e2e.support.KeyedPayments;
import dev.idempotency.store.redis.OwnRedis;
import dev.idempotency.store.testing.Await;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.net.http.HttpResponse;
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
 * Stock Tomcat 9 with the agent on Redis through Sentinel: a master, its replica and three sentinels made by the test
 * from the installed redis-server. Eight clients send keyed payments, retrying each key on 503 and 409 as real clients
 * do, until it gets its answer. The master is killed with SIGKILL; the sentinels promote the replica; the old node
 * comes back empty as the new master's replica, with a replica priority of 0 until it has copied the data set (a
 * replica that never synced is one Sentinel may promote, redis/redis#13533: a second failover to it would wipe the
 * promoted master, which then copies its empty data set). Then, from the application's own ledger:
 * duplicate charges, answers a replay no longer finds, 503s and the time without service, with {@code replica-acks}
 * 0 and 1. With 1, no key may be charged twice and every 201 replays byte for byte; with 0 the figures are reported,
 * since Redis's asynchronous replication may lose what the master acknowledged last.
 */
public class RedisSentinelFailoverTomcat9IT {
    private static final String MASTER = "payments";
    private static final int CLIENTS = 8;
    private static final int KEYS_BEFORE_THE_KILL = 400;
    private static final int KEYS = 1600;

    @ParameterizedTest(name = "replica-acks={0}")
    @ValueSource(ints = {0, 1})
    public void killingTheMasterUnderLoad(int replicaAcks) throws Exception {
        OwnRedis master = OwnRedis.start("--maxmemory-policy", "noeviction");
        OwnRedis replica = null;
        OwnRedis restarted = null;
        List<OwnRedis> sentinels = new ArrayList<>();
        try {
            replica = OwnRedis.start("--maxmemory-policy", "noeviction", "--replicaof", "127.0.0.1",
                    Integer.toString(master.port));
            for (int i = 0; i < 3; i++) sentinels.add(OwnRedis.sentinel(MASTER, master.port));
            for (OwnRedis s : sentinels) {
                Await.until("sentinel " + s.port + " to see the replica and the other sentinels", Duration.ofSeconds(30),
                        () -> s.readyToFailOver(MASTER, 1), ready -> ready);
            }
            String url = "redis-sentinel://127.0.0.1:" + sentinels.get(0).port + ",127.0.0.1:" + sentinels.get(1).port
                    + ",127.0.0.1:" + sentinels.get(2).port + "/" + MASTER;
            try (ServerProcess tomcat = TomcatServer.tomcat9()
                    .set("idempotency.store.url", url)
                    .set("idempotency.store.replica-acks", Integer.toString(replicaAcks))
                    .set("idempotency.store.connect-timeout", "1s")
                    .set("idempotency.store.query-timeout", "2s")
                    .set("idempotency.lease", "10s")
                    .set("idempotency.sweep-interval", "1s")) {
                tomcat.start();
                Client client = new Client(tomcat.baseUrl());
                KeyedPayments payments = new KeyedPayments("sentinel-" + replicaAcks + "-");
                Map<Integer, KeyedPayments.Outcome> outcomes = new ConcurrentHashMap<>();
                AtomicInteger next = new AtomicInteger();
                AtomicInteger done = new AtomicInteger();
                AtomicLong firstAnswerAfterKill = new AtomicLong(Long.MAX_VALUE);
                AtomicLong killedAt = new AtomicLong(Long.MAX_VALUE);
                AtomicBoolean failed = new AtomicBoolean();
                ExecutorService clients = Executors.newFixedThreadPool(CLIENTS);
                List<Future<?>> running = new ArrayList<>();
                for (int c = 0; c < CLIENTS; c++) {
                    running.add(clients.submit(() -> {
                        for (int n; !failed.get() && (n = next.incrementAndGet()) <= KEYS; ) {
                            long sentAt = System.nanoTime();
                            KeyedPayments.Outcome outcome = payments.untilAnswered(client, n);
                            outcomes.put(n, outcome);
                            done.incrementAndGet();
                            if (outcome.answer().statusCode() == 201 && sentAt > killedAt.get()) {
                                firstAnswerAfterKill.accumulateAndGet(outcome.answeredAt(), Math::min);
                            }
                        }
                        return null;
                    }));
                }
                Await.until("keys answered before the kill", Duration.ofSeconds(120), done::get,
                        n -> n >= KEYS_BEFORE_THE_KILL);
                killedAt.set(System.nanoTime());
                int killedPort = master.port;
                master.kill();
                OwnRedis promoted = replica;
                Await.until("the sentinels to promote the replica", Duration.ofSeconds(60), promoted::isMaster,
                        yes -> yes);
                // The old node back, empty, once every sentinel names the new master (back any earlier as a master,
                // it can end the failover, and the promoted replica then copies its empty data set), as that
                // master's replica, never to be promoted before it has copied the data set.
                for (OwnRedis s : sentinels) {
                    Await.until("sentinel " + s.port + " to name the promoted master", Duration.ofSeconds(60),
                            () -> s.masterPortNamed(MASTER), port -> port == promoted.port);
                }
                restarted = OwnRedis.startOn(killedPort, "--maxmemory-policy", "noeviction", "--replica-priority", "0",
                        "--replicaof", "127.0.0.1", Integer.toString(promoted.port));
                try {
                    for (Future<?> f : running) f.get(10, TimeUnit.MINUTES);
                } finally {
                    failed.set(true);
                    clients.shutdownNow();
                }
                assertEquals(KEYS, outcomes.size(), "every key got its final answer");

                Map<Integer, Long> chargeOfKey = new HashMap<>();
                int unknown = 0;
                int unavailable = 0;
                int lost = 0;
                for (Map.Entry<Integer, KeyedPayments.Outcome> e : outcomes.entrySet()) {
                    HttpResponse<byte[]> answer = e.getValue().answer();
                    unavailable += e.getValue().unavailable();
                    if (answer.statusCode() != 201) {
                        ServerScenarios.assertProblem(answer, 409, "outcome-unknown");
                        unknown++;
                        continue;
                    }
                    chargeOfKey.put(e.getKey(), KeyedPayments.chargeId(answer));
                    HttpResponse<byte[]> replay = client.send(payments.payment(client, e.getKey()));
                    boolean replayed = replay.statusCode() == 201
                            && "true".equals(replay.headers().firstValue("Idempotent-Replayed").orElse(null));
                    if (!replayed) {
                        lost++; // the key was not on the promoted replica: the retry ran the payment again
                        continue;
                    }
                    assertArrayEquals(answer.body(), replay.body(), "key " + e.getKey() + " replayed byte for byte");
                }
                tomcat.stop();
                Map<Long, List<Long>> chargesByAmount = KeyedPayments.ledgerCharges(tomcat);
                int duplicates = 0;
                for (List<Long> charges : chargesByAmount.values()) if (charges.size() > 1) duplicates++;
                long backAfterMillis = TimeUnit.NANOSECONDS.toMillis(firstAnswerAfterKill.get() - killedAt.get());
                System.out.printf("Sentinel failover through Tomcat, replica-acks=%d: %d keys, %d answered 201, %d outcome"
                                + " unknown, %d answers a replay no longer found, %d duplicate charges, %d charges in all,"
                                + " %d answers of 503 on the way, first 201 of a key sent after the kill %d ms after it%n",
                        replicaAcks, KEYS, chargeOfKey.size(), unknown, lost, duplicates,
                        chargesByAmount.values().stream().mapToInt(List::size).sum(), unavailable, backAfterMillis);
                assertTrue(firstAnswerAfterKill.get() != Long.MAX_VALUE && backAfterMillis < 30_000,
                        "service resumes by itself within 30 s of the kill; took " + backAfterMillis + " ms; the sentinels:\n"
                                + sentinelEvents(sentinels));
                if (replicaAcks > 0) {
                    String events = sentinelEvents(sentinels);
                    assertEquals(0, lost, "with replica-acks every answered key survives the failover; the sentinels:\n"
                            + events);
                    assertEquals(0, duplicates, "with replica-acks no key may be charged twice; the sentinels:\n" + events);
                    for (Map.Entry<Integer, Long> e : chargeOfKey.entrySet()) {
                        assertEquals(Collections.singletonList(e.getValue()), chargesByAmount.get((long) e.getKey()),
                                "key " + e.getKey() + " charged once, by the request whose answer the client got");
                    }
                }
            }
        } finally {
            for (OwnRedis s : sentinels) s.close();
            if (restarted != null) restarted.close();
            if (replica != null) replica.close();
            master.close();
        }
    }

    private static String sentinelEvents(List<OwnRedis> sentinels) {
        StringBuilder events = new StringBuilder();
        for (OwnRedis s : sentinels) events.append("sentinel ").append(s.port).append(":\n").append(s.events());
        return events.toString();
    }
}
