package dev.idempotency.e2e;

import dev.idempotency.e2e.support.Client;
import dev.idempotency.e2e.support.KeyedPayments;
import dev.idempotency.e2e.servers.ServerProcess;
import dev.idempotency.e2e.scenarios.ServerScenarios;
import dev.idempotency.e2e.servers.TomcatServer;
import dev.idempotency.store.testing.Await;
import dev.idempotency.store.testing.TestDatabase;
import org.junit.jupiter.api.Test;

import java.net.http.HttpResponse;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Stock Tomcat 9 with the agent on a PostgreSQL key table in one-second partitions, keys living four seconds. Pairs of
 * clients send each keyed payment at once while the partitions turn over under them; then the agent's own housekeeping
 * drops the partitions as their keys expire. From the application's ledger: every key charged once, by the request
 * whose answer both clients got; from the database: the keys went with their partitions, and only partitions that
 * ended a ttl ago went.
 */
public class PartitionedPurgeTomcat9IT {
    private static final int KEYS = 600;
    private static final int PAIRS = 4;
    private static final long TTL_SECONDS = 4;

    @Test
    public void duplicatesAcrossTurningPartitionsRunOnceAndExpiredPartitionsAreDropped() throws Exception {
        TestDatabase db = TestDatabase.postgres();
        String table = "e2e_purge_" + Long.toHexString(System.nanoTime());
        try (ServerProcess tomcat = TomcatServer.tomcat9()
                .set("idempotency.store.url", db.url)
                .set("idempotency.store.table", table)
                .set("idempotency.store.partitioning", "1s")
                .set("idempotency.ttl", TTL_SECONDS + "s")
                .set("idempotency.lease", "2s")
                .set("idempotency.sweep-interval", "1s");
             Connection c = DriverManager.getConnection(db.url, db.user, db.password);
             Statement s = c.createStatement()) {
            if (db.user != null) tomcat.set("idempotency.store.user", db.user).set("idempotency.store.password", db.password);
            tomcat.start();
            Client client = new Client(tomcat.baseUrl());
            KeyedPayments payments = new KeyedPayments("parts-");
            Map<Integer, List<HttpResponse<byte[]>>> answers = new ConcurrentHashMap<>();
            AtomicInteger next = new AtomicInteger();
            ExecutorService clients = Executors.newFixedThreadPool(2 * PAIRS);
            long started = System.nanoTime();
            try {
                List<Future<?>> running = new ArrayList<>();
                for (int p = 0; p < PAIRS; p++) {
                    running.add(clients.submit(() -> {
                        for (int n; (n = next.incrementAndGet()) <= KEYS; ) {
                            int key = n;
                            // The pair's second client sends the same key at the same moment.
                            Future<KeyedPayments.Outcome> twin = clients.submit(() -> payments.untilAnswered(client, key));
                            KeyedPayments.Outcome mine = payments.untilAnswered(client, key);
                            answers.put(key, List.of(mine.answer(), twin.get(30, TimeUnit.SECONDS).answer()));
                        }
                        return null;
                    }));
                }
                for (Future<?> f : running) f.get(5, TimeUnit.MINUTES);
            } finally {
                clients.shutdownNow();
            }
            long loadSeconds = TimeUnit.NANOSECONDS.toSeconds(System.nanoTime() - started);
            assertEquals(KEYS, answers.size());
            for (Map.Entry<Integer, List<HttpResponse<byte[]>>> e : answers.entrySet()) {
                HttpResponse<byte[]> first = e.getValue().get(0);
                assertEquals(201, first.statusCode(), "key " + e.getKey() + ": " + ServerScenarios.text(first));
                assertArrayEquals(first.body(), e.getValue().get(1).body(), "key " + e.getKey() + ": both clients got the same answer");
            }
            assertTrue(loadSeconds >= 2, "the load ran across partition boundaries (" + loadSeconds + " s)");

            // The agent's housekeeping drops each partition a ttl after it ended; every key goes with its partition.
            Await.until("every key's partition to be dropped", Duration.ofSeconds(60),
                    () -> scalar(s, "SELECT COUNT(*) FROM " + table), n -> n == 0);
            // Every partition that ended a ttl ago goes (with one housekeeping round and its own run time of grace).
            // Awaited, not asserted at one instant: a round can run late on a loaded machine; one that never drops
            // anything fails after the wait.
            Await.until("every partition that ended a ttl ago to be dropped", Duration.ofSeconds(30),
                    () -> overduePartitions(s, table), List::isEmpty);
            long partitionsLeft = partitionStarts(s, table).size();

            tomcat.stop();
            Map<Long, List<Long>> charges = KeyedPayments.ledgerCharges(tomcat);
            for (Map.Entry<Integer, List<HttpResponse<byte[]>>> e : answers.entrySet()) {
                assertEquals(Collections.singletonList(KeyedPayments.chargeId(e.getValue().get(0))), charges.get((long) e.getKey()),
                        "key " + e.getKey() + " charged once, by the request whose answer the clients got");
            }
            System.out.printf("partitioned store through Tomcat: %d keys sent twice at once over %d s of one-second partitions;"
                    + " %d charges; %d partitions left once every key expired%n", KEYS, loadSeconds,
                    charges.values().stream().mapToInt(List::size).sum(), partitionsLeft);
            dropPartitionedTable(s, table);
        }
    }

    public static void dropPartitionedTable(Statement s, String table) throws java.sql.SQLException {
        for (String suffix : new String[] {"", "_schema", "_secret", "_effects"}) s.execute("DROP TABLE IF EXISTS " + table + suffix + " CASCADE");
        s.execute("DROP FUNCTION IF EXISTS " + table + "_vacant(VARCHAR, VARCHAR)");
        s.execute("DROP FUNCTION IF EXISTS " + table + "_partition_seconds()");
    }

    /** The starts of the partitions that ended more than a ttl (and a grace of three seconds) before the database's now. */
    private static List<Long> overduePartitions(Statement s, String table) {
        try {
            long now = scalar(s, "SELECT CAST(floor(extract(epoch FROM CURRENT_TIMESTAMP)) AS BIGINT)");
            List<Long> overdue = new ArrayList<>();
            for (long start : partitionStarts(s, table)) if (start + 1 + TTL_SECONDS <= now - 3) overdue.add(start);
            return overdue;
        } catch (java.sql.SQLException e) {
            throw new AssertionError(e);
        }
    }

    /** The start, in epoch seconds, of each partition of the table the store made. */
    private static List<Long> partitionStarts(Statement s, String table) throws java.sql.SQLException {
        List<Long> starts = new ArrayList<>();
        java.time.format.DateTimeFormatter name = java.time.format.DateTimeFormatter.ofPattern("yyyyMMdd'T'HHmmss")
                .withZone(java.time.ZoneOffset.UTC);
        try (ResultSet rs = s.executeQuery("SELECT child.relname FROM pg_inherits i JOIN pg_class child ON child.oid = i.inhrelid"
                + " WHERE i.inhparent = to_regclass('" + table + "')")) {
            while (rs.next()) {
                String relname = rs.getString(1);
                String suffix = relname.substring(relname.lastIndexOf("_p") + 2).toUpperCase(java.util.Locale.ROOT);
                starts.add(name.parse(suffix, java.time.Instant::from).getEpochSecond());
            }
        }
        return starts;
    }

    private static long scalar(Statement s, String query) {
        try (ResultSet rs = s.executeQuery(query)) {
            rs.next();
            return rs.getLong(1);
        } catch (java.sql.SQLException e) {
            throw new AssertionError(query, e);
        }
    }
}
