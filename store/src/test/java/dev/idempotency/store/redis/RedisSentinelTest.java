package dev.idempotency.store.redis;

import dev.idempotency.store.OwnershipToken;
import dev.idempotency.store.Reservation;
import dev.idempotency.store.Reservation.Outcome;
import dev.idempotency.store.StoreSettings;
import dev.idempotency.store.StoreUnavailableException;
import dev.idempotency.store.StoredResponse;
import dev.idempotency.store.testing.Await;
import dev.idempotency.store.testing.LocalServers;
import org.junit.jupiter.api.Test;
import redis.clients.jedis.Jedis;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Redis Sentinel, with real servers made by the test on loopback ports (a master, its replica, three sentinels): the
 * store finds the master through the sentinels, fails closed while there is none, and follows a failover to the
 * promoted replica, which keeps every key the replica had acknowledged.
 */
class RedisSentinelTest {
    private static final String MASTER = "primary";

    private static StoreSettings settings(String url) {
        return StoreSettings.builder().url(url).table(RedisTestServer.randomPrefix())
                .connectTimeout(Duration.ofMillis(500)).queryTimeout(Duration.ofSeconds(1)).build();
    }

    @Test
    void theStoreFollowsAFailoverFailingClosedMeanwhileAndKeepsWhatTheReplicaAcknowledged() throws Exception {
        try (OwnRedis master = OwnRedis.start("--maxmemory-policy", "noeviction");
             OwnRedis replica = OwnRedis.start("--maxmemory-policy", "noeviction", "--replicaof", "127.0.0.1",
                     Integer.toString(master.port));
             OwnRedis s1 = OwnRedis.sentinel(MASTER, master.port);
             OwnRedis s2 = OwnRedis.sentinel(MASTER, master.port);
             OwnRedis s3 = OwnRedis.sentinel(MASTER, master.port)) {
            for (OwnRedis s : new OwnRedis[] {s1, s2, s3}) {
                Await.until("sentinel " + s.port + " to see the replica and the other sentinels", Duration.ofSeconds(30),
                        () -> s.readyToFailOver(MASTER, 1), ready -> ready);
            }
            String url = "redis-sentinel://127.0.0.1:" + s1.port + ",127.0.0.1:" + s2.port + ",127.0.0.1:" + s3.port + "/" + MASTER;
            StoredResponse paid = new StoredResponse(201, Collections.singletonList(new StoredResponse.Header("Content-Type", "application/json")),
                    "{\"paid\":true}".getBytes(StandardCharsets.UTF_8));
            try (RedisIdempotencyStore store = RedisIdempotencyStore.open(settings(url))) {
                store.checkSchema();
                Reservation first = store.reserve("t", "payment-1", "fp");
                assertEquals(Outcome.ACQUIRED, first.outcome());
                assertTrue(store.complete(first.token(), paid));
                try (Jedis m = master.connect()) {
                    Await.until("the replica to acknowledge the completed key", Duration.ofSeconds(30),
                            () -> m.waitReplicas(1, 1000), acknowledged -> acknowledged == 1L);
                }

                master.kill();
                List<StoreUnavailableException> refusals = new ArrayList<>();
                Reservation after = Await.until("a reservation on the promoted replica", Duration.ofSeconds(60), () -> {
                    try {
                        return store.reserve("t", "payment-2", "fp");
                    } catch (StoreUnavailableException noMasterYet) {
                        refusals.add(noMasterYet);
                        return null;
                    }
                }, r -> r != null);
                assertEquals(Outcome.ACQUIRED, after.outcome());
                assertTrue(replica.isMaster(), "the sentinels promoted the replica");
                assertTrue(!refusals.isEmpty(), "between the crash and the promotion the store answered unavailable");

                Reservation retry = store.reserve("t", "payment-1", "fp");
                assertEquals(Outcome.REPLAY, retry.outcome(), "the key completed before the crash replays from the new master");
                assertEquals(201, retry.response().status());
                assertArrayEquals(paid.body(), retry.response().body());
                OwnershipToken token = after.token();
                assertTrue(store.complete(token, paid), "the new master takes completions");
            }
        }
    }

    @Test
    void sentinelsThatDoNotAnswerLeaveTheStoreUnopenedAndSaySo() throws Exception {
        int none = LocalServers.freePort();
        StoreUnavailableException e = assertThrows(StoreUnavailableException.class,
                () -> RedisIdempotencyStore.open(settings("redis-sentinel://127.0.0.1:" + none + "/" + MASTER)).close());
        assertTrue(e.getMessage().contains("'" + MASTER + "'") && e.getMessage().contains("127.0.0.1:" + none), e.getMessage());
    }
}
