package dev.idempotency.store.redis;

import dev.idempotency.store.Reservation;
import dev.idempotency.store.Reservation.Outcome;
import dev.idempotency.store.StoreConfigurationException;
import dev.idempotency.store.StoreNotReplicatedException;
import dev.idempotency.store.StoreSettings;
import dev.idempotency.store.StoreUnavailableException;
import dev.idempotency.store.StoredResponse;
import dev.idempotency.store.families.StoreFamilies;
import dev.idempotency.store.testing.Await;
import org.junit.jupiter.api.Test;
import redis.clients.jedis.Jedis;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Collections;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * {@code replica-acks}: with it, a reservation or a response counts once a replica has it, and without a replica the
 * store fails closed within the query timeout; without it, the master's word counts. Real servers: a master and its
 * replica on loopback ports, the replica killed by the test.
 */
class RedisReplicaAcksTest {
    private static final Duration QUERY = Duration.ofSeconds(1);
    private static final StoredResponse OK = new StoredResponse(200, Collections.<StoredResponse.Header>emptyList(),
            "ok".getBytes(StandardCharsets.UTF_8));

    private static StoreSettings settings(String url, int replicaAcks) {
        return StoreSettings.builder().url(url).table(RedisTestServer.randomPrefix()).connectTimeout(Duration.ofMillis(500))
                .queryTimeout(QUERY).replicaAcks(replicaAcks).build();
    }

    @Test
    void writesCountOnceAReplicaHasThemAndFailClosedWithoutOne() throws Exception {
        try (OwnRedis master = OwnRedis.start("--maxmemory-policy", "noeviction");
             OwnRedis replica = OwnRedis.start("--replicaof", "127.0.0.1", Integer.toString(master.port));
             RedisIdempotencyStore acknowledged = RedisIdempotencyStore.open(settings(master.url(), 1));
             RedisIdempotencyStore masterAlone = RedisIdempotencyStore.open(settings(master.url(), 0))) {
            try (Jedis m = master.connect()) {
                Await.until("the replica to follow the master", Duration.ofSeconds(30), () -> m.waitReplicas(1, 500), n -> n == 1L);
            }
            Reservation before = acknowledged.reserve("t", "before", "fp");
            assertEquals(Outcome.ACQUIRED, before.outcome());
            assertTrue(acknowledged.complete(before.token(), OK));
            Reservation open = acknowledged.reserve("t", "open", "fp");
            assertEquals(Outcome.ACQUIRED, open.outcome());

            replica.kill();
            long start = System.nanoTime();
            StoreUnavailableException refused = assertThrows(StoreUnavailableException.class,
                    () -> acknowledged.reserve("t", "after", "fp"));
            Duration took = Duration.ofNanos(System.nanoTime() - start);
            assertTrue(took.compareTo(QUERY.plusSeconds(1)) < 0, "took " + took);
            assertTrue(refused.getMessage().contains("acknowledged by 0 of the 1 replica(s)"), refused.getMessage());
            assertNotNull(refused.possiblyReserved(), "the master holds the key: the token goes back with the refusal");
            assertEquals("after", refused.possiblyReserved().key());
            assertThrows(StoreNotReplicatedException.class, () -> acknowledged.complete(open.token(), OK),
                    "a response no replica holds does not count either, and is not sent again");
            assertEquals(Outcome.REPLAY, acknowledged.reserve("t", "before", "fp").outcome(), "reading waits for nothing");

            assertEquals(Outcome.ACQUIRED, masterAlone.reserve("t", "after", "fp").outcome(), "replica-acks 0: the master's word");
        }
    }

    /**
     * WAIT waits for its own connection's last write only: a connection that wrote nothing (a script that found its
     * work done, a write sent again after its first connection broke) must still wait for the replicas. The replica is
     * stopped (SIGSTOP), so it stays connected and acknowledges nothing.
     */
    @Test
    void aWaitCoversWhatOtherConnectionsWroteEvenOnAConnectionThatWroteNothing() throws Exception {
        try (OwnRedis master = OwnRedis.start("--maxmemory-policy", "noeviction");
             OwnRedis replica = OwnRedis.start("--replicaof", "127.0.0.1", Integer.toString(master.port));
             Jedis writer = master.connect(); Jedis fresh = master.connect()) {
            writer.set("written", "on another connection");
            Await.until("the replica to follow the master", Duration.ofSeconds(30), () -> writer.waitReplicas(1, 500), n -> n == 1L);
            replica.pause();
            try {
                writer.set("written", "again, not replicated");
                ReplicaAcknowledgement acks = new ReplicaAcknowledgement(1, QUERY, RedisEndpoint.of(settings(master.url(), 1)));
                StoreNotReplicatedException e = assertThrows(StoreNotReplicatedException.class,
                        () -> acks.await(fresh, KeyLayout.bytes("acks"), "complete", null));
                assertTrue(e.getMessage().contains("acknowledged by 0 of the 1"), e.getMessage());
            } finally {
                replica.resume();
            }
        }
    }

    @Test
    void replicaAcksIsARedisSettingFromZeroToSixteen() {
        assertEquals(0, StoreSettings.builder().url("redis://db").build().replicaAcks());
        for (int wrong : new int[] {-1, 17}) {
            StoreConfigurationException e = assertThrows(StoreConfigurationException.class,
                    () -> StoreSettings.builder().url("redis://db").replicaAcks(wrong).build());
            assertTrue(e.getMessage().contains("'replica-acks'") && e.getMessage().contains("0 to 16"), e.getMessage());
        }
        String jdbc = StoreFamilies.refusal(StoreSettings.builder().url("jdbc:postgresql://db/app?password=hunter2").replicaAcks(1).build());
        assertTrue(jdbc != null && jdbc.contains("'replica-acks' applies to a Redis store only") && !jdbc.contains("hunter2"), jdbc);
        assertEquals(null, StoreFamilies.refusal(StoreSettings.builder().url("redis-sentinel://s1/primary").replicaAcks(2).build()));
    }
}
