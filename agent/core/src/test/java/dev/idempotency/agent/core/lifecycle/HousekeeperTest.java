package dev.idempotency.agent.core.lifecycle;

import dev.idempotency.store.IdempotencyStore;
import dev.idempotency.store.StoreSettings;
import dev.idempotency.store.families.StoreFamilies;
import dev.idempotency.store.redis.RedisTestServer;
import dev.idempotency.store.testing.TcpProxy;
import dev.idempotency.store.testing.TestDatabase;
import dev.idempotency.store.Reservation;
import dev.idempotency.store.StoredResponse;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.net.URI;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The sweep says whether it reached the store, on the real PostgreSQL and Redis behind a proxy the test cuts: what
 * {@code idempotency_store_up} shows while no keyed request comes.
 */
class HousekeeperTest {
    @ParameterizedTest
    @ValueSource(strings = {"postgresql", "redis"})
    void aSweepTellsWhetherItReachedTheStore(String family) throws Exception {
        String target = "postgresql".equals(family) ? TestDatabase.postgres().hostAndPort() : redisHostAndPort();
        try (TcpProxy proxy = new TcpProxy(target)) {
            StoreSettings.Builder settings = StoreSettings.builder().connectTimeout(Duration.ofMillis(500))
                    .queryTimeout(Duration.ofSeconds(1));
            if ("postgresql".equals(family)) {
                TestDatabase db = TestDatabase.postgres();
                settings.url(db.viaPort("127.0.0.1", proxy.port())).user(db.user).password(db.password)
                        .table("hk_" + UUID.randomUUID().toString().replace("-", "").substring(0, 12));
            } else {
                settings.url("redis://127.0.0.1:" + proxy.port()).table(RedisTestServer.randomPrefix());
            }
            List<Boolean> told = new ArrayList<>();
            try (IdempotencyStore store = StoreFamilies.open(settings.build())) {
                store.checkSchema();
                Housekeeper.sweep(store, swept -> { }, told::add);
                proxy.cut();
                Housekeeper.sweep(store, swept -> { }, told::add);
                proxy.restore();
                Housekeeper.sweep(store, swept -> { }, told::add);
            } finally {
                if ("postgresql".equals(family)) dropTables(settings.build().table());
            }
            assertEquals(List.of(true, false, true), told, "reached, cut off, back");
        }
    }

    /** An operator's purge still running is not an unreachable store: the sweep that finds it says nothing. */
    @Test
    void aSweepThatFindsAnotherRunningSaysNothing() throws Exception {
        try (IdempotencyStore store = StoreFamilies.open(StoreSettings.builder()
                .url("jdbc:h2:mem:hk-" + UUID.randomUUID() + ";DB_CLOSE_DELAY=-1").ttl(Duration.ofMillis(200))
                .connectTimeout(Duration.ofMillis(300)).build())) {
            store.checkSchema();
            Reservation r = store.reserve("t", "k", "fp");
            assertTrue(store.complete(r.token(), new StoredResponse(201, List.of(), new byte[0])));
            CountDownLatch inside = new CountDownLatch(1);
            CountDownLatch release = new CountDownLatch(1);
            Thread operator = new Thread(() -> {
                // the key expires 200 ms after it was taken: purge until a batch deletes it, then hold the purge
                while (inside.getCount() > 0) {
                    store.purgeExpired(deleted -> {
                        inside.countDown();
                        try {
                            release.await();
                        } catch (InterruptedException e) {
                            Thread.currentThread().interrupt();
                        }
                    });
                }
            });
            operator.start();
            try {
                assertTrue(inside.await(10, TimeUnit.SECONDS), "the operator's purge deleted the expired key");
                List<Boolean> told = new ArrayList<>();
                Housekeeper.sweep(store, swept -> { }, told::add);
                assertEquals(List.of(), told, "busy, not down");
            } finally {
                release.countDown();
                operator.join();
            }
        }
    }

    private static String redisHostAndPort() {
        URI url = URI.create(RedisTestServer.url());
        return url.getHost() + ":" + url.getPort();
    }

    private static void dropTables(String table) throws Exception {
        try (java.sql.Connection c = TestDatabase.postgres().connect(new java.util.Properties());
             java.sql.Statement s = c.createStatement()) {
            for (String t : new String[] {table + "_schema", table + "_secret", table}) s.execute("DROP TABLE IF EXISTS " + t);
        }
    }
}
