package dev.idempotency.store;

import dev.idempotency.store.Reservation.Outcome;
import dev.idempotency.store.jdbc.JdbcIdempotencyStore;
import dev.idempotency.store.testing.Await;
import dev.idempotency.store.testing.GaleraCluster;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.TestMethodOrder;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The store on a three-node MariaDB Galera cluster made by the test: every node takes writes, and a conflicting write
 * certified first on another node reaches the loser as a deadlock at commit. Duplicates spread over the nodes are
 * acquired once; a node killed under load costs neither a duplicate nor an acknowledged completion.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
@TestMethodOrder(MethodOrderer.OrderAnnotation.class) // the kill comes last: the cluster is shared
class GaleraTest {
    private GaleraCluster cluster;
    private final List<JdbcIdempotencyStore> stores = new ArrayList<>();

    @BeforeAll
    void startCluster() throws Exception {
        cluster = GaleraCluster.start(3, 10);
    }

    @AfterAll
    void stopCluster() throws Exception {
        for (JdbcIdempotencyStore store : stores) store.close();
        if (cluster != null) cluster.close();
    }

    private JdbcIdempotencyStore store(String url, String table) {
        return store(url, table, true);
    }

    private JdbcIdempotencyStore store(String url, String table, boolean groupCommit) {
        JdbcIdempotencyStore store = JdbcIdempotencyStore.open(StoreSettings.builder().url(url).table(table).poolSize(6).groupCommit(groupCommit)
                .connectTimeout(Duration.ofSeconds(2)).queryTimeout(Duration.ofSeconds(3)).build());
        stores.add(store);
        store.checkSchema();
        return store;
    }

    private static StoredResponse response(String body) {
        return new StoredResponse(201, Collections.emptyList(), body.getBytes(StandardCharsets.UTF_8));
    }

    @Test
    @Order(1)
    void concurrentDuplicatesSpreadOverTheNodesAreAcquiredOnceAndReplayedEverywhere() throws Exception {
        String table = "galera_dupes_" + UUID.randomUUID().toString().substring(0, 8);
        // Galera retries an autocommit statement that lost certification once by itself; without that, every lost
        // conflict reaches the store as the deadlock error it must read as "look again".
        for (GaleraCluster.Node node : cluster.nodes()) cluster.execute(node, "SET GLOBAL wsrep_retry_autocommit = 0");
        try {
            duplicatesOnThreeNodes(table);
        } finally {
            for (GaleraCluster.Node node : cluster.nodes()) cluster.execute(node, "SET GLOBAL wsrep_retry_autocommit = 1");
        }
    }

    private void duplicatesOnThreeNodes(String table) throws Exception {
        long conflictsBefore = conflicts();
        // Without group commit each reservation's own insert meets the conflict (a batch that loses is only run again alone).
        JdbcIdempotencyStore[] perNode = {store(cluster.url(1), table, false), store(cluster.url(2), table, false),
                store(cluster.url(3), table, false)};
        int keys = 40;
        int callersPerNode = 3;
        ExecutorService pool = Executors.newFixedThreadPool(3 * callersPerNode);
        try {
            for (int k = 0; k < keys; k++) {
                String key = "dup-" + k;
                CountDownLatch start = new CountDownLatch(1);
                List<Future<Reservation>> calls = new ArrayList<>();
                List<JdbcIdempotencyStore> callers = new ArrayList<>();
                for (JdbcIdempotencyStore store : perNode) {
                    for (int c = 0; c < callersPerNode; c++) {
                        callers.add(store);
                        calls.add(pool.submit(() -> {
                            start.await();
                            return store.reserve("t", key, "fp");
                        }));
                    }
                }
                start.countDown();
                List<Reservation> owners = new ArrayList<>();
                JdbcIdempotencyStore ownersNode = null;
                for (int i = 0; i < calls.size(); i++) {
                    Reservation r = calls.get(i).get(30, TimeUnit.SECONDS);
                    if (r.owned()) {
                        owners.add(r);
                        ownersNode = callers.get(i);
                    } else {
                        assertEquals(Outcome.IN_FLIGHT, r.outcome(), key);
                    }
                }
                assertEquals(1, owners.size(), key + " acquired by exactly one of " + calls.size() + " callers on three nodes");
                assertTrue(ownersNode.complete(owners.get(0).token(), response("answer of " + key)), key);
            }
        } finally {
            pool.shutdownNow();
        }
        long lostConflicts = conflicts() - conflictsBefore;
        System.out.printf("galera: %d writes lost certification or were aborted by a replicated write%n", lostConflicts);
        assertTrue(lostConflicts > 0, "duplicates on three nodes at once must have made writes lose conflicts");
        // Every node replays every key (a node may apply another's commit a moment later: looked at until it has).
        for (int k = 0; k < keys; k++) {
            String key = "dup-" + k;
            for (JdbcIdempotencyStore store : perNode) {
                Reservation replay = Await.until(key + " to replay", Duration.ofSeconds(10), () -> store.reserve("t", key, "fp"),
                        r -> r.outcome() == Outcome.REPLAY);
                assertEquals("answer of " + key, new String(replay.response().body(), StandardCharsets.UTF_8));
            }
        }
    }

    /** Writes that lost certification, or that a replicated write aborted, on all nodes so far. */
    private long conflicts() {
        long sum = 0;
        for (GaleraCluster.Node node : cluster.nodes()) {
            for (String figure : new String[] {"wsrep_local_cert_failures", "wsrep_local_bf_aborts"}) {
                String value = cluster.status(node, figure);
                if (value.matches("\\d+")) sum += Long.parseLong(value);
            }
        }
        return sum;
    }

    @Test
    @Order(2)
    void aNodeKilledUnderLoadCostsNoDuplicateAndNoAcknowledgedCompletion() throws Exception {
        String table = "galera_kill_" + UUID.randomUUID().toString().substring(0, 8);
        JdbcIdempotencyStore onNode1 = store(cluster.url(1), table);
        JdbcIdempotencyStore balanced = store(cluster.loadBalancedUrl(), table);
        JdbcIdempotencyStore[] clients = {onNode1, balanced};
        Map<String, String> acknowledged = new ConcurrentHashMap<>();
        Map<String, AtomicInteger> acquired = new ConcurrentHashMap<>();
        AtomicInteger failures = new AtomicInteger();
        AtomicBoolean running = new AtomicBoolean(true);
        AtomicInteger sequence = new AtomicInteger();
        AtomicLong lastBalancedSuccess = new AtomicLong();
        ExecutorService load = Executors.newFixedThreadPool(6);
        List<Future<?>> workers = new ArrayList<>();
        for (int t = 0; t < 6; t++) {
            int worker = t;
            workers.add(load.submit(() -> {
                while (running.get()) {
                    // Each key is sent twice at once, through both stores: duplicates spread over the nodes.
                    String key = "kill-" + sequence.incrementAndGet() / 2;
                    JdbcIdempotencyStore store = clients[worker % 2];
                    try {
                        Reservation r = store.reserve("t", key, "fp");
                        if (!r.owned()) continue;
                        acquired.computeIfAbsent(key, k -> new AtomicInteger()).incrementAndGet();
                        String body = "answer of " + key;
                        if (store.complete(r.token(), response(body))) acknowledged.put(key, body);
                        if (store == balanced) lastBalancedSuccess.set(System.nanoTime());
                    } catch (StoreException e) {
                        failures.incrementAndGet(); // fails closed: a 503 (unavailable, or a row lock that outlived its wait)
                    }
                }
                return null;
            }));
        }
        long killed;
        long back;
        try {
            Await.until("keys to be recorded before the kill", Duration.ofSeconds(60), acknowledged::size, n -> n >= 300);
            killed = System.nanoTime();
            cluster.kill(3);
            // Two minutes: on this 2-core machine under a full build, the survivors' eviction of node 3 and the lock
            // waits of the transactions it held have taken over a minute; the probe says which of the two was late.
            String recovered = withSurvivorsLogs(() -> Await.until("the balanced store to write without node 3", Duration.ofSeconds(120), () -> {
                long last = lastBalancedSuccess.get();
                String size = cluster.status(cluster.node(1), "wsrep_cluster_size");
                String state = cluster.status(cluster.node(1), "wsrep_cluster_status");
                return "last balanced write " + TimeUnit.NANOSECONDS.toMillis(last - killed) + " ms after the kill; node 1 "
                        + "sees a cluster of " + size + " (" + state + ")";
            }, seen -> lastBalancedSuccess.get() > killed + TimeUnit.SECONDS.toNanos(1) && seen.contains("cluster of 2 (Primary)")));
            back = lastBalancedSuccess.get();
            System.out.println("galera: " + recovered);
            int before = acknowledged.size();
            Await.until("keys to be recorded after the kill", Duration.ofSeconds(60), acknowledged::size, n -> n >= before + 300);
        } finally {
            running.set(false);
            load.shutdown();
        }
        for (Future<?> w : workers) w.get(60, TimeUnit.SECONDS);

        long duplicates = acquired.values().stream().filter(n -> n.get() > 1).count();
        System.out.printf("galera: %d keys acquired, %d duplicates, %d acknowledged, %d calls failed closed, balanced store"
                        + " writing again %d ms after the kill%n", acquired.size(), duplicates, acknowledged.size(), failures.get(),
                TimeUnit.NANOSECONDS.toMillis(back - killed));
        assertEquals(0, duplicates, "no key acquired twice");
        for (Map.Entry<String, String> e : acknowledged.entrySet()) {
            Reservation replay = Await.until(e.getKey() + " to replay", Duration.ofSeconds(10), () -> onNode1.reserve("t", e.getKey(), "fp"),
                    r -> r.outcome() != Outcome.IN_FLIGHT);
            assertEquals(Outcome.REPLAY, replay.outcome(), e.getKey());
            assertEquals(e.getValue(), new String(replay.response().body(), StandardCharsets.UTF_8));
        }
    }

    /**
     * What the survivors logged, added to a failure of {@code wait}: once (at 10 s eviction, with nothing else running)
     * nodes 1 and 2 stayed a non-primary component of two for the whole two minutes, and the failure said no more.
     */
    private <T> T withSurvivorsLogs(java.util.function.Supplier<T> wait) throws java.io.IOException {
        try {
            return wait.get();
        } catch (AssertionError e) {
            StringBuilder logs = new StringBuilder(String.valueOf(e.getMessage()));
            for (int node = 1; node <= 2; node++) {
                String[] lines = cluster.errorLog(node).split("\n");
                logs.append("\n--- the end of node ").append(node).append("'s error log ---\n")
                        .append(String.join("\n", Arrays.copyOfRange(lines, Math.max(0, lines.length - 60), lines.length)));
            }
            throw new AssertionError(logs.toString(), e);
        }
    }
}
