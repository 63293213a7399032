package dev.idempotency.store;

import dev.idempotency.store.Reservation.Outcome;
import dev.idempotency.store.jdbc.JdbcIdempotencyStore;
import dev.idempotency.store.testing.TcpProxy;
import dev.idempotency.store.testing.TestDatabase;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.nio.charset.StandardCharsets;
import java.util.Collections;
import java.util.UUID;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * A retry of a request this store answered (the same JVM: one server, or a sticky balancer) reads its key first: one
 * round trip, where a store that never saw the key sends the insert that its row refuses and then reads it (two). The
 * round trips are the client's requests through a proxy in front of the database.
 */
class RetryRoundTripsTest {
    private static final StoredResponse PAID = new StoredResponse(201,
            Collections.singletonList(new StoredResponse.Header("Content-Type", "application/json")),
            "{\"paid\":true}".getBytes(StandardCharsets.UTF_8));

    private static TestDatabase database(String which) {
        return which.equals("postgres") ? TestDatabase.postgres() : TestDatabase.mariadb();
    }

    @ParameterizedTest
    @ValueSource(strings = {"postgres", "mariadb"})
    void aRetryOfAKeyAnsweredHereTakesOneRoundTrip(String which) throws Exception {
        TestDatabase db = database(which);
        String table = "idem_rt_" + UUID.randomUUID().toString().substring(0, 8);
        StoreSettings.Builder settings = StoreSettings.builder().url(db.url).user(db.user).password(db.password)
                .table(table);
        try (JdbcIdempotencyStore direct = JdbcIdempotencyStore.open(settings.build())) {
            direct.checkSchema();
        }
        try (TcpProxy proxy = new TcpProxy(db.hostAndPort());
             JdbcIdempotencyStore answered = JdbcIdempotencyStore.open(StoreSettings.builder()
                     .url(db.viaPort("127.0.0.1", proxy.port())).user(db.user).password(db.password).table(table)
                     .poolSize(1).build());
             JdbcIdempotencyStore elsewhere = JdbcIdempotencyStore.open(StoreSettings.builder()
                     .url(db.viaPort("127.0.0.1", proxy.port())).user(db.user).password(db.password).table(table)
                     .poolSize(1).build())) {
            Reservation first = answered.reserve("t", "paid", "fp");
            assertEquals(Outcome.ACQUIRED, first.outcome());
            answered.complete(first.token(), PAID);
            // Each store's one connection made, and each statement counted below used once on it, so that neither
            // connecting nor preparing a statement on the server (MariaDB) is counted below.
            Reservation warmUp = elsewhere.reserve("t", "warm-up", "fp");
            assertEquals(Outcome.ACQUIRED, warmUp.outcome());
            elsewhere.complete(warmUp.token(), PAID);
            assertEquals(Outcome.REPLAY, answered.reserve("t", "warm-up", "fp").outcome());
            assertEquals(Outcome.REPLAY, elsewhere.reserve("t", "warm-up", "fp").outcome());

            long before = proxy.clientReads();
            Reservation here = answered.reserve("t", "paid", "fp");
            long hereTrips = proxy.clientReads() - before;
            before = proxy.clientReads();
            Reservation there = elsewhere.reserve("t", "paid", "fp");
            long thereTrips = proxy.clientReads() - before;

            assertEquals(Outcome.REPLAY, here.outcome());
            assertArrayEquals(PAID.body(), here.response().body());
            assertEquals(Outcome.REPLAY, there.outcome());
            assertEquals(1, hereTrips, "the retry here reads its key, once");
            assertEquals(2, thereTrips, "a store that never saw the key inserts, is refused, then reads");
            assertEquals(Outcome.MISMATCH, answered.reserve("t", "paid", "another payload").outcome());
        }
    }
}
