package dev.idempotency.store;

import dev.idempotency.store.Reservation.Outcome;
import dev.idempotency.store.jdbc.JdbcIdempotencyStore;
import dev.idempotency.store.testing.Await;
import dev.idempotency.store.testing.TcpProxy;
import dev.idempotency.store.testing.TestDatabase;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.UUID;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** A network database that goes away: the store fails fast with one distinct exception and heals by itself. */
abstract class StoreOutageContract {

    protected abstract TestDatabase database();

    @Test
    void anUnreachableDatabaseFailsFastAndTheStoreRecoversWhenItIsBack() throws Exception {
        TestDatabase db = database();
        try (TcpProxy proxy = new TcpProxy(db.hostAndPort());
             JdbcIdempotencyStore store = JdbcIdempotencyStore.open(StoreSettings.builder()
                     .url(db.viaPort("127.0.0.1", proxy.port())).user(db.user).password(db.password)
                     .table("idem_outage_" + UUID.randomUUID().toString().substring(0, 8))
                     .connectTimeout(Duration.ofSeconds(1)).queryTimeout(Duration.ofSeconds(2)).build())) {
            // The first connection (driver, schema) may take longer than the 1 s connect timeout on a busy machine.
            Reservation first = Await.until("the store to open", Duration.ofSeconds(20), () -> {
                try {
                    return store.reserve("t", "before", "fp");
                } catch (StoreUnavailableException e) {
                    return null;
                }
            }, r -> r != null);
            assertEquals(Outcome.ACQUIRED, first.outcome());

            proxy.cut();
            for (int i = 0; i < 3; i++) {
                long start = System.nanoTime();
                assertThrows(StoreUnavailableException.class, () -> store.reserve("t", "during", "fp"));
                long tookMillis = (System.nanoTime() - start) / 1_000_000;
                assertTrue(tookMillis < 4_000, "an outage must be reported in bounded time, took " + tookMillis + " ms");
            }

            proxy.restore();
            Reservation after = Await.until("the store to recover", Duration.ofSeconds(20), () -> {
                try {
                    return store.reserve("t", "after", "fp");
                } catch (StoreUnavailableException e) {
                    return null;
                }
            }, r -> r != null);
            assertEquals(Outcome.ACQUIRED, after.outcome());
            assertEquals(Outcome.IN_FLIGHT, store.reserve("t", "before", "fp").outcome(), "what was stored before the outage is still there");
            try (java.sql.Connection c = java.sql.DriverManager.getConnection(db.url, db.user, db.password);
                 java.sql.Statement s = c.createStatement()) {
                s.execute("DROP TABLE " + store.settings().table());
                s.execute("DROP TABLE " + store.settings().table() + "_schema");
                s.execute("DROP TABLE IF EXISTS " + store.settings().table() + "_secret");
            }
        }
    }
    /**
     * A store reaching the database through the proxy with short timeouts, on a table created beforehand directly (DDL
     * can outlast a 1 s timeout on a busy machine, and the schema is not what these tests are about).
     */
    private static StoreSettings.Builder through(TcpProxy proxy, TestDatabase db) {
        String table = "idem_outage_" + UUID.randomUUID().toString().substring(0, 8);
        try (JdbcIdempotencyStore direct = JdbcIdempotencyStore.open(StoreSettings.builder().url(db.url).user(db.user)
                .password(db.password).table(table).build())) {
            direct.checkSchema();
        }
        return StoreSettings.builder().url(db.viaPort("127.0.0.1", proxy.port())).user(db.user).password(db.password)
                .table(table).schemaMode(SchemaMode.VALIDATE)
                .connectTimeout(Duration.ofSeconds(1)).queryTimeout(Duration.ofSeconds(1));
    }

    private static void dropTables(TestDatabase db, String table) throws java.sql.SQLException {
        try (java.sql.Connection c = java.sql.DriverManager.getConnection(db.url, db.user, db.password);
             java.sql.Statement s = c.createStatement()) {
            for (String suffix : new String[] {"", "_schema", "_secret"}) s.execute("DROP TABLE IF EXISTS " + table + suffix);
        }
    }

    /**
     * A first insert whose answer was lost is sent again, with the same token, on a fresh connection: the row it wrote
     * reads as the caller's own, and nobody waits for a lease to run out.
     */
    @Test
    void aFirstInsertWhoseAnswerWasLostIsRepeatedWithItsTokenOnAFreshConnection() throws Exception {
        TestDatabase db = database();
        try (TcpProxy proxy = new TcpProxy(db.hostAndPort());
             JdbcIdempotencyStore store = JdbcIdempotencyStore.open(through(proxy, db).build())) {
            try {
                store.checkSchema();
                String key = "lost-then-repeated-" + UUID.randomUUID();
                proxy.loseRepliesAfter(key);
                Reservation first = store.reserve("t", key, "fp");
                assertEquals(Outcome.ACQUIRED, first.outcome(), "the repeated insert found the row the lost one wrote");
                assertEquals(null, proxy.pendingMarker(), "the first insert did reach the database, and its answer was lost");
                assertEquals(Outcome.IN_FLIGHT, store.reserve("t", key, "fp").outcome(), "one reservation holds the key");
                assertTrue(store.complete(first.token(), new StoredResponse(201, java.util.Collections.emptyList(), "ok".getBytes())));
                assertEquals("ok", new String(store.reserve("t", key, "fp").response().body()));
            } finally {
                proxy.restore();
                dropTables(db, store.settings().table());
            }
        }
    }

    /**
     * A completion whose answer was lost is sent again on a fresh connection; finding exactly its own response recorded
     * under its token, it counts as won (with and without group commit), so the response is sent and replays.
     */
    @Test
    void aCompletionWhoseAnswerWasLostIsRepeatedAndCountsAsRecorded() throws Exception {
        TestDatabase db = database();
        for (boolean groupCommit : new boolean[] {true, false}) {
            try (TcpProxy proxy = new TcpProxy(db.hostAndPort());
                 JdbcIdempotencyStore store = JdbcIdempotencyStore.open(through(proxy, db).groupCommit(groupCommit).build())) {
                try {
                    store.checkSchema();
                    String key = "lost-completion-" + UUID.randomUUID();
                    Reservation r = store.reserve("t", key, "fp");
                    assertEquals(Outcome.ACQUIRED, r.outcome());
                    String body = "answer-" + UUID.randomUUID();
                    proxy.loseRepliesAfter(body);
                    assertTrue(store.complete(r.token(), new StoredResponse(201, java.util.Collections.emptyList(), body.getBytes())),
                            "group commit " + groupCommit + ": the repeat found its own completion");
                    assertEquals(null, proxy.pendingMarker(), "the first completion did reach the database");
                    assertEquals(body, new String(store.reserve("t", key, "fp").response().body()));
                    assertFalse(store.complete(r.token(), new StoredResponse(201, java.util.Collections.emptyList(), "another".getBytes())),
                            "another response on the same token is not this completion");
                } finally {
                    proxy.restore();
                    dropTables(db, store.settings().table());
                }
            }
        }
    }

    /** Without group commit a lost insert is not repeated (its token could not be told from a newer one's): it is handed back. */
    @Test
    void aReservationWhoseAnswerWasLostCarriesItsTokenAndReleasingItMakesTheKeyRetryable() throws Exception {
        TestDatabase db = database();
        try (TcpProxy proxy = new TcpProxy(db.hostAndPort());
             JdbcIdempotencyStore store = JdbcIdempotencyStore.open(through(proxy, db).groupCommit(false).build())) {
            try {
                store.checkSchema();
                String key = "lost-answer-" + UUID.randomUUID();
                // The insert reaches the database and commits; its answer never comes back.
                proxy.loseRepliesAfter(key);
                StoreUnavailableException lost = assertThrows(StoreUnavailableException.class, () -> store.reserve("t", key, "fp"));
                OwnershipToken token = lost.possiblyReserved();
                assertNotNull(token, "the write was sent: its token must be handed back");
                assertEquals("t", token.scope());
                assertEquals(key, token.key());

                // The database never went away; the driver dropped the connection whose answer it waited for in vain.
                Reservation meanwhile = Await.until("the store to recover", Duration.ofSeconds(20), () -> {
                    try {
                        return store.reserve("t", key, "fp");
                    } catch (StoreUnavailableException e) {
                        return null;
                    }
                }, r -> r != null);
                assertEquals(Outcome.IN_FLIGHT, meanwhile.outcome(), "the lost reservation did get in and holds the key");

                assertTrue(store.release(token), "the carried token owns the key");
                Reservation retry = store.reserve("t", key, "fp");
                assertEquals(Outcome.REACQUIRED, retry.outcome());
                assertFalse(store.release(token), "released once; now a harmless no-op");
                assertTrue(store.complete(retry.token(), new StoredResponse(200, java.util.Collections.emptyList(), new byte[0])));
            } finally {
                proxy.restore();
                dropTables(db, store.settings().table());
            }
        }
    }

    /** Who closes the store while its pools' connects are held. */
    private enum Closer { A_THREAD, AN_INTERRUPTED_THREAD }

    /**
     * A store closed while its pools are still making their first connections (the database slow to answer a connect)
     * leaves none of them open: close waits for a connect that ends meanwhile and closes its connection, and a closing
     * thread's interrupt does not cut the pools' shutdown short. The pools' close used to wait not at all, and a
     * connection made after it stayed open. (One whose connect outlasts that wait: {@code DriverDataSourceTest}.)
     */
    @Test
    void aStoreClosedWhileItsPoolsConnectLeavesNoConnectionOpen() throws Exception {
        TestDatabase db = database();
        for (Closer closing : Closer.values()) {
            try (TcpProxy proxy = new TcpProxy(db.hostAndPort())) {
                StoreSettings settings = through(proxy, db).connectTimeout(Duration.ofSeconds(5)).build();
                proxy.holdNewConnections();
                JdbcIdempotencyStore store = JdbcIdempotencyStore.open(settings);
                try {
                    Await.until("the pools to start connecting", Duration.ofSeconds(10), proxy::heldConnections, n -> n > 0);
                    Thread closer = new Thread(() -> {
                        if (closing == Closer.AN_INTERRUPTED_THREAD) Thread.currentThread().interrupt();
                        store.close();
                    }, "closing-store");
                    closer.start();
                    Await.until("close() to wait for the pools' connects", Duration.ofSeconds(10),
                            () -> !closer.isAlive() || waitsForConnects(closer), waiting -> waiting);
                    proxy.releaseHeld();
                    closer.join(TimeUnit.SECONDS.toMillis(20));
                    assertFalse(closer.isAlive(), closing + ": close() returned");
                    Await.until(closing + ": every connection the pools made to be closed", Duration.ofSeconds(10),
                            proxy::openConnections, n -> n == 0);
                } finally {
                    proxy.releaseHeld();
                    store.close();
                    dropTables(db, settings.table());
                }
            }
        }
    }

    private static boolean waitsForConnects(Thread closer) {
        for (StackTraceElement frame : closer.getStackTrace()) {
            if (frame.getMethodName().equals("awaitTermination")) return true;
        }
        return false;
    }

    @Test
    void aReservationThatNeverReachedTheDatabaseCarriesNoToken() throws Exception {
        TestDatabase db = database();
        try (TcpProxy proxy = new TcpProxy(db.hostAndPort())) {
            StoreSettings settings = through(proxy, db).build();
            proxy.cut();
            try (JdbcIdempotencyStore store = JdbcIdempotencyStore.open(settings)) {
                StoreUnavailableException e = assertThrows(StoreUnavailableException.class, () -> store.reserve("t", "k", "fp"));
                assertNull(e.possiblyReserved(), "no connection, nothing sent: " + e.getMessage());
            } finally {
                dropTables(db, settings.table());
            }
        }
    }
}
