package dev.idempotency.store.redis;

import dev.idempotency.store.OwnershipToken;
import dev.idempotency.store.StoreSettings;
import dev.idempotency.store.StoreUnavailableException;
import dev.idempotency.store.StoredResponse;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import redis.clients.jedis.Jedis;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Collections;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** Sweep and purge on Redis: one at a time beside the heartbeat, and never a loop on a key the purge cannot act on. */
class RedisHousekeepingTest {
    private static final StoredResponse DONE = new StoredResponse(200, Collections.emptyList(),
            "done".getBytes(StandardCharsets.UTF_8));
    private final String prefix = RedisTestServer.randomPrefix();

    private StoreSettings.Builder settings() {
        return StoreSettings.builder().url(RedisTestServer.url()).table(prefix).connectTimeout(Duration.ofMillis(500))
                .queryTimeout(Duration.ofSeconds(5)).batchSize(1);
    }

    @AfterEach
    void dropKeys() {
        RedisTestServer.dropPrefix(prefix);
    }

    @Test
    void aSecondSweepOrPurgeDoesNotTakeTheConnectionTheHeartbeatNeeds() throws Exception {
        try (RedisIdempotencyStore store = RedisIdempotencyStore.open(settings().build())) {
            for (int i = 0; i < 2; i++) {
                store.complete(store.reserve("t", "done" + i, "fp").token(), DONE);
                RedisTestServer.setTime(prefix, "t", "done" + i, "expires", -60);
            }
            OwnershipToken running = store.reserve("t", "running", "fp").token();
            CountDownLatch inside = new CountDownLatch(1);
            CountDownLatch goOn = new CountDownLatch(1);
            ExecutorService housekeeper = Executors.newSingleThreadExecutor();
            try {
                // A purge that holds its background connection (it waits inside, after its first batch of one key).
                Future<Integer> purge = housekeeper.submit(() -> store.purgeExpired(deleted -> {
                    inside.countDown();
                    try {
                        goOn.await(30, TimeUnit.SECONDS);
                    } catch (InterruptedException e) {
                        Thread.currentThread().interrupt();
                    }
                }));
                assertTrue(inside.await(30, TimeUnit.SECONDS), "the purge deleted its first key");
                StoreUnavailableException busy = assertThrows(StoreUnavailableException.class, store::sweepExpiredLeases);
                assertTrue(busy.getMessage().contains("other housekeeping still runs"), busy.getMessage());
                assertEquals(1, store.renew(Collections.singletonList(running)), "the heartbeat's renewal went through");
                goOn.countDown();
                assertEquals(2, purge.get(30, TimeUnit.SECONDS));
            } finally {
                goOn.countDown();
                housekeeper.shutdownNow();
            }
        }
    }

    @Test
    void aKeyThePurgeCannotActOnIsLookedAtAgainLaterNotInALoop() {
        try (RedisIdempotencyStore store = RedisIdempotencyStore.open(settings().build());
             Jedis raw = RedisTestServer.connect()) {
            store.complete(store.reserve("t", "k", "fp").token(), DONE);
            byte[] id = KeyLayout.id("t", "k");
            byte[][] keys = new KeyLayout(prefix).keysOf(id);
            // A status this version does not know (a later version's), due for the purge now.
            raw.hset(keys[0], bytes("status"), bytes("FROM_A_LATER_VERSION"));
            raw.zadd(keys[2], 0, id);

            int deleted = assertTimeoutPreemptively(Duration.ofSeconds(30), () -> store.purgeExpired());

            assertEquals(0, deleted);
            assertTrue(raw.exists(keys[0]), "the key is kept");
            long serverMillis = Long.parseLong(raw.time().get(0)) * 1000;
            assertTrue(raw.zscore(keys[2], id) > serverMillis, "looked at again after the retention, not now");
        }
    }

    @Test
    void aLateCompletionOfAnUnknownKeyMakesItDueAtItsExpiryAgainNotAfterTheRetention() {
        try (RedisIdempotencyStore store = RedisIdempotencyStore.open(settings().build());
             Jedis raw = RedisTestServer.connect()) {
            OwnershipToken owner = store.reserve("t", "slow", "fp").token();
            RedisTestServer.setTime(prefix, "t", "slow", "lease", -1);
            assertEquals(1, store.sweepExpiredLeases(), "the lease ran out: the key's outcome is unknown");
            byte[] id = KeyLayout.id("t", "slow");
            byte[][] keys = new KeyLayout(prefix).keysOf(id);
            double expires = Double.parseDouble(raw.hget(new String(keys[0], StandardCharsets.UTF_8), "expires"));
            assertTrue(raw.zscore(keys[2], id) > expires, "an unknown key is kept for the retention");

            assertTrue(store.complete(owner, DONE), "its owner still records the truth");

            assertEquals(expires, raw.zscore(keys[2], id), "completed, it is due at its expiry");
        }
    }

    private static byte[] bytes(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }
}
