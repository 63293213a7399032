package dev.idempotency.store;

import dev.idempotency.store.Reservation.Outcome;
import dev.idempotency.store.jdbc.JdbcIdempotencyStore;
import dev.idempotency.store.testing.Await;
import dev.idempotency.store.testing.TcpProxy;
import dev.idempotency.store.testing.TestDatabase;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.UUID;

import static org.junit.jupiter.api.Assertions.assertEquals;
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
            assertEquals(Outcome.ACQUIRED, store.reserve("t", "before", "fp").outcome());

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
            }
        }
    }
}
