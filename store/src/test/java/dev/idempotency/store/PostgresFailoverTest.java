package dev.idempotency.store;

import dev.idempotency.store.Reservation.Outcome;
import dev.idempotency.store.jdbc.JdbcIdempotencyStore;
import dev.idempotency.store.testing.Await;
import dev.idempotency.store.testing.PostgresNode;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.sql.SQLException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
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
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The store on PostgreSQL servers of the test's own, doing what must never be done to the shared one: a primary
 * killed and its synchronous standby promoted, commits waiting for a standby that is not there, a server turned
 * read-only under the pool's feet.
 */
class PostgresFailoverTest {
    private static final String APPLICATION_NAME = "idempotency-store";

    private Path base;
    private final List<PostgresNode> nodes = new ArrayList<>();
    private final List<JdbcIdempotencyStore> stores = new ArrayList<>();

    @AfterEach
    void tearDown() throws Exception {
        for (JdbcIdempotencyStore store : stores) store.close();
        for (PostgresNode node : nodes) node.close();
        PostgresNode.removeAll(base);
    }

    private PostgresNode primary(String... settings) throws Exception {
        base = PostgresNode.baseDirectory("idem-failover");
        PostgresNode node = PostgresNode.primary(base, "primary", settings);
        nodes.add(node);
        return node;
    }

    private JdbcIdempotencyStore store(String url, int poolSize) {
        JdbcIdempotencyStore store = JdbcIdempotencyStore.open(StoreSettings.builder().url(url).poolSize(poolSize)
                .connectTimeout(Duration.ofSeconds(1)).queryTimeout(Duration.ofSeconds(1)).build());
        stores.add(store);
        awaitSchema(store, Duration.ofSeconds(30));
        return store;
    }

    private static void awaitSchema(JdbcIdempotencyStore store, Duration timeout) {
        Await.until("the store's schema", timeout, () -> {
            try {
                store.checkSchema();
                return true;
            } catch (StoreUnavailableException e) {
                return false;
            }
        }, ready -> ready);
    }

    private static StoredResponse response(String body) {
        return new StoredResponse(201, Collections.singletonList(new StoredResponse.Header("Content-Type", "text/plain")),
                body.getBytes(StandardCharsets.UTF_8));
    }

    /**
     * Steady load from four threads while the primary is killed and the synchronous standby promoted. Every completion
     * the store acknowledged is replayed by the new primary; while there is no primary every call fails closed; once
     * the standby is promoted, the pool's dead connections cost no caller a failure; the old primary, back as a
     * standby and first in the URL, is never written to.
     */
    @Test
    void aFailoverToTheSynchronousStandbyLosesNothingAcknowledgedAndTheStoreReconnectsByItself() throws Exception {
        PostgresNode primary = primary("synchronous_standby_names = 'standby1'");
        PostgresNode standby = PostgresNode.standbyOf(primary, "standby1", "synchronous_standby_names = ''");
        nodes.add(standby);
        // No targetServerType in the URL: the store asks for the primary itself.
        String url = "jdbc:postgresql://" + primary.hostAndPort() + "," + standby.hostAndPort() + "/postgres?user=postgres";
        JdbcIdempotencyStore store = store(url, 4);

        Map<String, String> acknowledged = new ConcurrentHashMap<>(); // key -> body the store said it recorded
        List<long[]> failures = Collections.synchronizedList(new ArrayList<>()); // [time, 0]
        AtomicBoolean running = new AtomicBoolean(true);
        AtomicInteger sequence = new AtomicInteger();
        AtomicLong lastSuccess = new AtomicLong();
        AtomicInteger refusedCompletions = new AtomicInteger();
        ExecutorService load = Executors.newFixedThreadPool(4);
        List<Future<?>> workers = new ArrayList<>();
        for (int t = 0; t < 4; t++) {
            workers.add(load.submit(() -> {
                while (running.get()) {
                    String key = "k" + sequence.incrementAndGet();
                    try {
                        Reservation r = store.reserve("t", key, "fp");
                        assertEquals(Outcome.ACQUIRED, r.outcome(), key);
                        String body = "answer of " + key;
                        if (store.complete(r.token(), response(body))) acknowledged.put(key, body);
                        else refusedCompletions.incrementAndGet(); // nobody else touches these keys: never right
                        lastSuccess.set(System.nanoTime());
                    } catch (StoreUnavailableException e) {
                        failures.add(new long[] {System.nanoTime()});
                    }
                }
                return null;
            }));
        }
        Await.until("keys to be recorded before the kill", Duration.ofSeconds(30), acknowledged::size, n -> n >= 200);

        long killed = System.nanoTime();
        primary.kill();
        int failuresBefore = failures.size();
        Await.until("a call to fail closed without a primary", Duration.ofSeconds(20), failures::size, n -> n > failuresBefore);
        standby.promote();
        long promoted = System.nanoTime();
        long back = Await.until("the store to be back on the new primary", Duration.ofSeconds(30), lastSuccess::get, t -> t > promoted);
        Await.until("keys to be recorded after the failover", Duration.ofSeconds(30), lastSuccess::get,
                t -> t - back > TimeUnit.SECONDS.toNanos(2));
        running.set(false);
        for (Future<?> w : workers) w.get(30, TimeUnit.SECONDS);
        load.shutdown();

        long failedAfterBack = failures.stream().filter(f -> f[0] > back).count();
        System.out.printf("failover: %d keys acknowledged, %d calls failed closed, service back %d ms after the kill"
                        + " (%d ms after the promotion), %d failures after it was back%n", acknowledged.size(), failures.size(),
                TimeUnit.NANOSECONDS.toMillis(back - killed), TimeUnit.NANOSECONDS.toMillis(back - promoted), failedAfterBack);
        assertEquals(0, failedAfterBack, "once a call succeeded on the new primary, no dead pooled connection may cost a caller");
        assertEquals(0, refusedCompletions.get(), "a completion whose answer was lost and that was repeated is its owner's");
        assertTrue(TimeUnit.NANOSECONDS.toMillis(back - promoted) < 10_000, "service must resume by itself soon after the promotion");

        // Everything acknowledged before, during and after the failover is replayed by the new primary.
        int replayed = 0;
        for (Map.Entry<String, String> e : acknowledged.entrySet()) {
            Reservation r = store.reserve("t", e.getKey(), "fp");
            assertEquals(Outcome.REPLAY, r.outcome(), e.getKey());
            assertEquals(e.getValue(), new String(r.response().body(), StandardCharsets.UTF_8));
            replayed++;
        }
        assertEquals(acknowledged.size(), replayed);

        // The old primary comes back as a standby, listed first: connections go past it to the primary.
        primary.rejoinAsStandbyOf(standby);
        JdbcIdempotencyStore afterRejoin = store(url, 2);
        for (int i = 0; i < 20; i++) assertEquals(Outcome.ACQUIRED, afterRejoin.reserve("t", "rejoined-" + i, "fp").outcome());
        assertEquals("t", primary.queryValue("SELECT pg_is_in_recovery()"), "the old primary is a standby now");
        // pgjdbc's look at the standby (is it the primary?) is a session too, which the server ends a moment after
        // the driver leaves it (a fresh-clone CI run counted one): none may stay.
        Await.until("no store connection to rest on the standby", Duration.ofSeconds(10),
                () -> {
                    try {
                        return primary.backends(APPLICATION_NAME);
                    } catch (SQLException e) {
                        throw new IllegalStateException(e);
                    }
                }, n -> n == 0);
        assertTrue(standby.backends(APPLICATION_NAME) > 0);
    }

    /**
     * A commit that waits for a synchronous standby that is not there: the statement is cancelled on the server at the
     * query timeout, the write counts as not done (a failover could lose it) and is handed back, and the store never
     * holds more server processes than its pools, however many callers time out.
     */
    @Test
    void aCommitWaitingForAnAbsentStandbyIsCancelledOnTheServerAndFailsClosed() throws Exception {
        PostgresNode primary = primary();
        JdbcIdempotencyStore store = store(primary.url(), 3);
        primary.execute("ALTER SYSTEM SET synchronous_standby_names = 'absent'");
        primary.execute("SELECT pg_reload_conf()");
        Await.until("commits to wait for the standby", Duration.ofSeconds(10),
                () -> queryText(primary, "SHOW synchronous_standby_names"), "absent"::equals);
        int callers = 12;
        ExecutorService pool = Executors.newFixedThreadPool(callers);
        CountDownLatch start = new CountDownLatch(1);
        List<Future<StoreUnavailableException>> calls = new ArrayList<>();
        for (int i = 0; i < callers; i++) {
            String key = "hang-" + i;
            calls.add(pool.submit(() -> {
                start.await();
                return assertThrows(StoreUnavailableException.class, () -> store.reserve("t", key, "fp"), key);
            }));
        }
        start.countDown();
        int mostBackends = 0;
        while (calls.stream().anyMatch(f -> !f.isDone())) {
            mostBackends = Math.max(mostBackends, primary.backends(APPLICATION_NAME));
        }
        pool.shutdown();
        int handedBack = 0;
        for (Future<StoreUnavailableException> call : calls) {
            StoreUnavailableException e = call.get();
            if (e.possiblyReserved() != null) handedBack++;
        }
        assertTrue(mostBackends <= 3 + 2, "at most the pools' connections may hold server processes; saw " + mostBackends);
        assertTrue(handedBack > 0, "a write committed locally but not replicated is handed back as possibly reserved");
        Await.until("no server process to wait for the standby", Duration.ofSeconds(10),
                () -> queryInt(primary, "SELECT count(*) FROM pg_stat_activity WHERE wait_event = 'SyncRep'"), n -> n == 0);

        primary.execute("ALTER SYSTEM SET synchronous_standby_names = ''");
        primary.execute("SELECT pg_reload_conf()");
        assertEquals(Outcome.ACQUIRED, onceWritable(store, "after-the-standby-requirement").outcome());
    }

    /**
     * The schema's DDL and partition maintenance commit transactions of their own. With the standby absent, each such
     * commit is cancelled on the server at the query timeout and fails closed, instead of holding its server process,
     * and the locks of its DDL (which every starting node and every partition drop queue behind), until the standby
     * returns.
     */
    @Test
    void schemaAndPartitionCommitsWaitingForAnAbsentStandbyAreCancelledOnTheServer() throws Exception {
        PostgresNode primary = primary();
        JdbcIdempotencyStore store = JdbcIdempotencyStore.open(StoreSettings.builder().url(primary.url()).poolSize(2)
                .connectTimeout(Duration.ofSeconds(1)).queryTimeout(Duration.ofSeconds(1)).partitioning(Duration.ofDays(1)).build());
        stores.add(store);
        requireStandby(primary, "absent");
        assertThrows(StoreNotReplicatedException.class, store::checkSchema, "the schema's commit is not replicated");
        awaitNoCommitWaitingForTheStandby(primary);

        requireStandby(primary, "");
        awaitSchema(store, Duration.ofSeconds(20));
        // The newest partition ahead goes missing: the next maintenance round makes it again, in a transaction.
        String newest = queryText(primary, "SELECT max(c.relname) FROM pg_inherits i JOIN pg_class c ON c.oid = i.inhrelid"
                + " WHERE i.inhparent = to_regclass('idempotency_keys')");
        primary.execute("DROP TABLE " + newest);
        requireStandby(primary, "absent");
        assertThrows(StoreNotReplicatedException.class, () -> store.purgeExpired(batch -> { }), "the new partition's commit is not replicated");
        awaitNoCommitWaitingForTheStandby(primary);
    }

    private static void requireStandby(PostgresNode primary, String names) throws Exception {
        primary.execute("ALTER SYSTEM SET synchronous_standby_names = '" + names + "'");
        primary.execute("SELECT pg_reload_conf()");
        Await.until("commits to wait for standby '" + names + "'", Duration.ofSeconds(10),
                () -> queryText(primary, "SHOW synchronous_standby_names"), names::equals);
    }

    private static void awaitNoCommitWaitingForTheStandby(PostgresNode primary) {
        Await.until("no server process to wait for the standby", Duration.ofSeconds(10),
                () -> queryInt(primary, "SELECT count(*) FROM pg_stat_activity WHERE wait_event = 'SyncRep'"), n -> n == 0);
    }

    /** A server that turns read-only (a demoted primary) is not written to; writes resume when it is writable again. */
    @Test
    void aServerTurnedReadOnlyFailsClosedAndIsUsedAgainOnceWritable() throws Exception {
        PostgresNode primary = primary();
        JdbcIdempotencyStore store = store(primary.url(), 3);
        assertEquals(Outcome.ACQUIRED, store.reserve("t", "before", "fp").outcome());

        primary.execute("ALTER SYSTEM SET default_transaction_read_only = on");
        primary.execute("SELECT pg_reload_conf()");
        StoreUnavailableException refused = Await.until("the pool's connections to see the server read-only", Duration.ofSeconds(20), () -> {
            try {
                store.reserve("t", "during-" + System.nanoTime(), "fp");
                return null;
            } catch (StoreUnavailableException e) {
                return e;
            }
        }, e -> e != null);
        assertNotNull(refused.getMessage());
        for (int i = 0; i < 3; i++) {
            assertThrows(StoreUnavailableException.class, () -> store.reserve("t", "refused-" + System.nanoTime(), "fp"),
                    "a read-only server is not the primary: no connection to it is used");
        }

        primary.execute("ALTER SYSTEM SET default_transaction_read_only = off");
        primary.execute("SELECT pg_reload_conf()");
        assertEquals(Outcome.ACQUIRED, onceWritable(store, "after").outcome());
        assertEquals(Outcome.IN_FLIGHT, store.reserve("t", "before", "fp").outcome());
    }

    /** The reservation of {@code key} as soon as the store can write again. */
    private static Reservation onceWritable(JdbcIdempotencyStore store, String key) {
        return Await.until("the store to write again", Duration.ofSeconds(20), () -> {
            try {
                return store.reserve("t", key, "fp");
            } catch (StoreUnavailableException e) {
                return null;
            }
        }, r -> r != null);
    }

    private static int queryInt(PostgresNode node, String query) {
        return Integer.parseInt(queryText(node, query));
    }

    private static String queryText(PostgresNode node, String query) {
        try {
            return node.queryValue(query);
        } catch (java.sql.SQLException e) {
            throw new IllegalStateException(e);
        }
    }
}
