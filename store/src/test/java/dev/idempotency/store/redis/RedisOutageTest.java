package dev.idempotency.store.redis;

import dev.idempotency.store.OwnershipToken;
import dev.idempotency.store.Reservation.Outcome;
import dev.idempotency.store.SchemaMode;
import dev.idempotency.store.StoreConfigurationException;
import dev.idempotency.store.StoreSettings;
import dev.idempotency.store.StoreUnavailableException;
import dev.idempotency.store.testing.Await;
import dev.idempotency.store.testing.LocalServers;
import org.junit.jupiter.api.Test;
import redis.clients.jedis.Jedis;
import redis.clients.jedis.args.ClientPauseMode;
import redis.clients.jedis.args.ClientType;
import redis.clients.jedis.params.ClientKillParams;

import java.io.IOException;
import java.net.ServerSocket;
import java.net.Socket;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** A Redis that is away, silent, full or misconfigured: the store fails closed, in bounded time, and says why. */
class RedisOutageTest {
    private static final Duration CONNECT = Duration.ofMillis(500);
    private static final Duration QUERY = Duration.ofSeconds(1);

    private static StoreSettings.Builder settings(String url) {
        return StoreSettings.builder().url(url).table(RedisTestServer.randomPrefix()).connectTimeout(CONNECT).queryTimeout(QUERY);
    }

    @Test
    void aServerThatIsNotThereIsUnavailableAtOnceWithNothingPossiblyReserved() throws IOException {
        int closed = LocalServers.freePort();
        try (RedisIdempotencyStore store = RedisIdempotencyStore.open(settings("redis://127.0.0.1:" + closed).build())) {
            long start = System.nanoTime();
            StoreUnavailableException e = assertThrows(StoreUnavailableException.class, () -> store.reserve("t", "k", "fp"));
            assertTrue(Duration.ofNanos(System.nanoTime() - start).compareTo(CONNECT.plus(QUERY)) < 0, "took too long");
            assertNull(e.possiblyReserved(), "no write was sent");
            assertTrue(e.getMessage().contains("127.0.0.1:" + closed), e.getMessage());
            assertThrows(StoreUnavailableException.class, store::checkSchema);
            assertThrows(StoreUnavailableException.class, store::sweepExpiredLeases);
        }
    }

    @Test
    void aServerThatNeverAnswersIsUnavailableWithinTheTimeouts() throws Exception {
        // Accepts connections and answers nothing, not even the connection's handshake: a hung server.
        try (ServerSocket silent = new ServerSocket(0); RedisIdempotencyStore store = RedisIdempotencyStore.open(
                settings("redis://127.0.0.1:" + silent.getLocalPort()).build())) {
            List<Socket> accepted = Collections.synchronizedList(new ArrayList<>());
            Thread acceptor = new Thread(() -> {
                try {
                    while (true) accepted.add(silent.accept());
                } catch (IOException closedAtTheEnd) {
                    // the test is over
                }
            });
            acceptor.setDaemon(true);
            acceptor.start();
            long start = System.nanoTime();
            StoreUnavailableException e = assertThrows(StoreUnavailableException.class, () -> store.reserve("t", "k", "fp"));
            Duration took = Duration.ofNanos(System.nanoTime() - start);
            assertTrue(took.compareTo(CONNECT.plus(QUERY).plusSeconds(2)) < 0, "took " + took);
            assertNull(e.possiblyReserved(), "the handshake never ended: the script was not sent");
            for (Socket s : accepted) s.close();
        }
    }

    @Test
    void aReservationWhoseAnswerIsLostCarriesItsTokenWhichIsSafeToRelease() throws Exception {
        try (OwnRedis redis = OwnRedis.start();
             RedisIdempotencyStore store = RedisIdempotencyStore.open(settings(redis.url()).poolSize(1).build())) {
            assertEquals(Outcome.ACQUIRED, store.reserve("t", "warm-up", "fp").outcome()); // the connection is made
            long pauseMillis = QUERY.toMillis() + 1500;
            try (Jedis admin = redis.connect()) {
                admin.clientPause(pauseMillis, ClientPauseMode.WRITE); // writes wait
            }
            long start = System.nanoTime();
            StoreUnavailableException e = assertThrows(StoreUnavailableException.class, () -> store.reserve("t", "k", "fp"));
            Duration took = Duration.ofNanos(System.nanoTime() - start);
            assertTrue(took.compareTo(QUERY) >= 0 && took.compareTo(QUERY.plusSeconds(2)) < 0, "took " + took);
            OwnershipToken possibly = e.possiblyReserved();
            assertNotNull(possibly, "the script was sent and its answer lost: the key may be ours");
            assertEquals("k", possibly.key());
            // Once the server is back, giving the token back is harmless whether or not the script ran.
            dev.idempotency.store.testing.Await.until("the pause to end", Duration.ofSeconds(10), () -> {
                try {
                    store.release(possibly);
                    return true;
                } catch (StoreUnavailableException stillPaused) {
                    return false;
                }
            }, done -> done);
            Outcome next = store.reserve("t", "k", "fp").outcome();
            assertTrue(next == Outcome.ACQUIRED || next == Outcome.REACQUIRED, next.toString());
        }
    }

    @Test
    void aServerThatEvictsKeysIsRefusedAtTheCheck() throws Exception {
        try (OwnRedis redis = OwnRedis.start("--maxmemory", "100mb", "--maxmemory-policy", "allkeys-lru");
             RedisIdempotencyStore store = RedisIdempotencyStore.open(settings(redis.url()).build())) {
            StoreConfigurationException e = assertThrows(StoreConfigurationException.class, store::checkSchema);
            assertTrue(e.getMessage().contains("'allkeys-lru'") && e.getMessage().contains("noeviction"), e.getMessage());
            String server = "127.0.0.1:" + redis.port;
            assertEquals(e.getMessage().indexOf(server), e.getMessage().lastIndexOf(server), "the server is named once: " + e.getMessage());
            try (Jedis admin = redis.connect()) {
                admin.configSet("maxmemory-policy", "noeviction");
            }
            store.checkSchema();
        }
    }

    /**
     * A master that starts to evict after start-up (reconfigured, or a replica with another policy promoted): the next
     * sweep finds it, and reservations are refused as unavailable (503) until a sweep finds it no longer evicts.
     */
    @Test
    void aServerThatStartsToEvictIsFoundByTheSweepAndRefusesReservationsUntilItStops() throws Exception {
        try (OwnRedis redis = OwnRedis.start("--maxmemory", "100mb", "--maxmemory-policy", "noeviction");
             RedisIdempotencyStore store = RedisIdempotencyStore.open(settings(redis.url()).build());
             Jedis admin = redis.connect()) {
            store.checkSchema();
            assertEquals(Outcome.ACQUIRED, store.reserve("t", "before", "fp").outcome());
            admin.configSet("maxmemory-policy", "allkeys-lru");
            StoreUnavailableException found = assertThrows(StoreUnavailableException.class, store::sweepExpiredLeases);
            assertTrue(found.getMessage().contains("'allkeys-lru'"), found.getMessage());
            StoreUnavailableException refused = assertThrows(StoreUnavailableException.class, () -> store.reserve("t", "during", "fp"));
            assertTrue(refused.getMessage().contains("'allkeys-lru'"), refused.getMessage());
            assertNull(refused.possiblyReserved(), "nothing was sent");
            admin.configSet("maxmemory-policy", "noeviction");
            store.sweepExpiredLeases();
            assertEquals(Outcome.ACQUIRED, store.reserve("t", "during", "fp").outcome(), "the refused key was never written");
        }
    }

    @Test
    void aFullServerRefusesReservationsAsUnavailableWithNothingReserved() throws Exception {
        try (OwnRedis redis = OwnRedis.start("--maxmemory-policy", "noeviction");
             RedisIdempotencyStore store = RedisIdempotencyStore.open(settings(redis.url()).build())) {
            assertEquals(Outcome.ACQUIRED, store.reserve("t", "before", "fp").outcome());
            try (Jedis admin = redis.connect()) {
                admin.configSet("maxmemory", "1"); // below what the server already uses: every write is refused
            }
            StoreUnavailableException e = assertThrows(StoreUnavailableException.class, () -> store.reserve("t", "k", "fp"));
            assertTrue(e.getMessage().contains("OOM"), e.getMessage());
            assertNull(e.possiblyReserved(), "the server refused the script before it ran");
            try (Jedis admin = redis.connect()) {
                admin.configSet("maxmemory", "0");
            }
            assertEquals(Outcome.ACQUIRED, store.reserve("t", "k", "fp").outcome());
        }
    }

    /** min-replicas-to-write unmet (NOREPLICAS), and a replica named as the server (READONLY): refused, nothing taken. */
    @Test
    void aServerThatRefusesWritesIsUnavailableWithNothingReserved() throws Exception {
        try (OwnRedis master = OwnRedis.start("--maxmemory-policy", "noeviction", "--min-replicas-to-write", "1",
                     "--min-replicas-max-lag", "1");
             OwnRedis replica = OwnRedis.start("--maxmemory-policy", "noeviction", "--replicaof", "127.0.0.1",
                     Integer.toString(master.port));
             RedisIdempotencyStore onMaster = RedisIdempotencyStore.open(settings(master.url()).build());
             RedisIdempotencyStore onReplica = RedisIdempotencyStore.open(settings(replica.url()).build())) {
            StoreUnavailableException readOnly = assertThrows(StoreUnavailableException.class,
                    () -> onReplica.reserve("t", "k", "fp"));
            assertTrue(readOnly.getMessage().contains("READONLY"), readOnly.getMessage());
            assertNull(readOnly.possiblyReserved(), "the replica refused the script before it ran");

            replica.close(); // the master's only replica gone: it refuses writes once it notices
            StoreUnavailableException noReplicas = Await.until("the master to refuse writes without its replica",
                    Duration.ofSeconds(30), () -> {
                        try {
                            onMaster.reserve("t", "k-" + System.nanoTime(), "fp");
                            return null;
                        } catch (StoreUnavailableException e) {
                            return e;
                        }
                    }, e -> e != null);
            assertTrue(noReplicas.getMessage().contains("NOREPLICAS"), noReplicas.getMessage());
            assertNull(noReplicas.possiblyReserved(), "the master refused the script before it ran");
        }
    }

    @Test
    void theLayoutMarkerIsWrittenByCreateRequiredByValidateAndAForeignOneRefused() throws Exception {
        try (OwnRedis redis = OwnRedis.start()) {
            StoreSettings.Builder settings = settings(redis.url());
            try (RedisIdempotencyStore validating = RedisIdempotencyStore.open(settings.schemaMode(SchemaMode.VALIDATE).build())) {
                StoreConfigurationException e = assertThrows(StoreConfigurationException.class, validating::checkSchema);
                assertTrue(e.getMessage().contains("schema mode create"), e.getMessage());
                try (RedisIdempotencyStore creating = RedisIdempotencyStore.open(settings.schemaMode(SchemaMode.CREATE).build())) {
                    creating.checkSchema();
                }
                validating.checkSchema();
            }
            String table = settings.build().table();
            try (Jedis admin = redis.connect()) {
                admin.set(table + ":layout", "redis-layout-99");
            }
            try (RedisIdempotencyStore store = RedisIdempotencyStore.open(settings.schemaMode(SchemaMode.CREATE).build())) {
                StoreConfigurationException e = assertThrows(StoreConfigurationException.class, store::checkSchema);
                assertTrue(e.getMessage().contains("redis-layout-99"), e.getMessage());
            }
        }
    }

    @Test
    void aWrongPasswordIsUnavailableAndNamesTheRefusal() throws Exception {
        try (OwnRedis redis = OwnRedis.start("--requirepass", "right");
             RedisIdempotencyStore store = RedisIdempotencyStore.open(settings(redis.url()).password("hunter2").build())) {
            StoreUnavailableException e = assertThrows(StoreUnavailableException.class, store::checkSchema);
            assertTrue(e.getMessage().contains("WRONGPASS"), e.getMessage());
            assertTrue(!e.getMessage().contains("hunter2"), e.getMessage());
            try (RedisIdempotencyStore right = RedisIdempotencyStore.open(settings(redis.url()).password("right").build())) {
                right.checkSchema();
                assertEquals(Outcome.ACQUIRED, right.reserve("t", "k", "fp").outcome());
            }
        }
    }

    @Test
    void aServerThatForgotTheScriptsIsSentThemAgain() throws Exception {
        try (OwnRedis redis = OwnRedis.start();
             RedisIdempotencyStore store = RedisIdempotencyStore.open(settings(redis.url()).build())) {
            OwnershipToken owner = store.reserve("t", "k", "fp").token();
            try (Jedis admin = redis.connect()) {
                admin.scriptFlush(); // as after a restart without persistence of the script cache
            }
            assertEquals(1, store.renew(Collections.singletonList(owner)), "the pipelined renewals, sent again");
            try (Jedis admin = redis.connect()) {
                admin.scriptFlush();
            }
            assertEquals(Outcome.IN_FLIGHT, store.reserve("t", "k", "fp").outcome(), "a single script, sent by its source");
            assertTrue(store.complete(owner, new dev.idempotency.store.StoredResponse(200, Collections.emptyList(), new byte[0])));
        }
    }

    @Test
    void connectionsTheServerClosedAreReplacedWithoutFailingTheRequest() throws Exception {
        try (OwnRedis redis = OwnRedis.start();
             RedisIdempotencyStore store = RedisIdempotencyStore.open(settings(redis.url()).poolSize(4).build())) {
            // Four pooled connections, idle.
            java.util.concurrent.ExecutorService four = java.util.concurrent.Executors.newFixedThreadPool(4);
            try {
                java.util.concurrent.CyclicBarrier together = new java.util.concurrent.CyclicBarrier(4);
                List<java.util.concurrent.Future<Outcome>> warm = new ArrayList<>();
                for (int i = 0; i < 4; i++) {
                    String key = "warm-" + i;
                    warm.add(four.submit(() -> {
                        together.await(10, java.util.concurrent.TimeUnit.SECONDS);
                        return store.reserve("t", key, "fp").outcome();
                    }));
                }
                for (java.util.concurrent.Future<Outcome> f : warm) assertEquals(Outcome.ACQUIRED, f.get(30, java.util.concurrent.TimeUnit.SECONDS));
            } finally {
                four.shutdownNow();
            }
            OwnershipToken owner = store.reserve("t", "k", "fp").token();
            try (Jedis admin = redis.connect()) {
                admin.clientKill(ClientKillParams.clientKillParams().type(ClientType.NORMAL).skipMe(ClientKillParams.SkipMe.YES));
            }
            // Every pooled connection is closed by the server now; each operation still gets its answer.
            assertTrue(store.complete(owner, new dev.idempotency.store.StoredResponse(201, Collections.emptyList(), new byte[] {1, 2})));
            for (int i = 0; i < 4; i++) assertEquals(Outcome.ACQUIRED, store.reserve("t", "after-" + i, "fp").outcome());
            assertEquals(Outcome.REPLAY, store.reserve("t", "k", "fp").outcome());
        }
    }

    @Test
    void aReservationWhoseConnectionBrokeAndWhoseServerIsGoneMayStillHaveGoneIn() throws Exception {
        try (OwnRedis redis = OwnRedis.start();
             RedisIdempotencyStore store = RedisIdempotencyStore.open(settings(redis.url()).poolSize(1).build())) {
            assertEquals(Outcome.ACQUIRED, store.reserve("t", "warm-up", "fp").outcome()); // one pooled connection
            try (Jedis admin = redis.connect()) {
                admin.shutdown(); // the pooled connection breaks, and connecting anew is refused
            } catch (redis.clients.jedis.exceptions.JedisException goneBeforeAnswering) {
                // as expected of SHUTDOWN
            }
            StoreUnavailableException e = assertThrows(StoreUnavailableException.class, () -> store.reserve("t", "k", "fp"));
            assertNotNull(e.possiblyReserved(), "sent on the broken connection: the key may be ours: " + e.getMessage());
        }
    }

    @Test
    void aCompletionOrReservationSentAgainAfterItWentInStillSaysItWon() throws Exception {
        try (OwnRedis redis = OwnRedis.start(); Jedis raw = redis.connect()) {
            String prefix = RedisTestServer.randomPrefix();
            KeyLayout layout = new KeyLayout(prefix);
            byte[] id = KeyLayout.id("t", "k");
            byte[][] keys = layout.keysOf(id);
            byte[] token = "the-token".getBytes(java.nio.charset.StandardCharsets.UTF_8);
            byte[][] reserve = {id, bytes("fp"), token, bytes("30000"), bytes("60000"), bytes("RECONCILE"), bytes("3600000")};
            assertEquals("ACQUIRED", first(Script.RESERVE.run(raw, keys, reserve)));
            assertEquals("ACQUIRED", first(Script.RESERVE.run(raw, keys, reserve)), "its own token in flight: the same reservation");
            byte[][] complete = {id, token, bytes("200"), bytes("h"), bytes("body"), bytes("0")};
            assertEquals(1L, Script.COMPLETE.run(raw, keys, complete));
            assertEquals(1L, Script.COMPLETE.run(raw, keys, complete),
                    "the same completion tried again (its first answer lost to a timeout) did win");
            complete[5] = bytes("1");
            assertEquals(1L, Script.COMPLETE.run(raw, keys, complete), "the same completion sent again did win");
            complete[4] = bytes("another body");
            assertEquals(0L, Script.COMPLETE.run(raw, keys, complete), "another response is not the one that went in");
        }
    }

    private static byte[] bytes(String s) {
        return s.getBytes(java.nio.charset.StandardCharsets.UTF_8);
    }

    private static String first(Object answer) {
        return new String((byte[]) ((List<?>) answer).get(0), java.nio.charset.StandardCharsets.UTF_8);
    }
}
