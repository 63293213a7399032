package dev.idempotency.store.redis;

import dev.idempotency.store.KeyQuery;
import dev.idempotency.store.KeyStatus;
import dev.idempotency.store.Reservation;
import dev.idempotency.store.Reservation.Outcome;
import dev.idempotency.store.StoreSettings;
import dev.idempotency.store.StoredResponse;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import redis.clients.jedis.Jedis;
import redis.clients.jedis.util.JedisClusterCRC16;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** What the store contract cannot see: how keys are laid out in Redis, and stores sharing a server. */
class RedisLayoutTest {
    private static String url;
    private final String prefix = RedisTestServer.randomPrefix();
    private final String otherPrefix = RedisTestServer.randomPrefix();
    private final List<RedisIdempotencyStore> opened = new ArrayList<>();

    @BeforeAll
    static void server() {
        url = RedisTestServer.url();
    }

    private RedisIdempotencyStore open(String table) {
        RedisIdempotencyStore store = RedisIdempotencyStore.open(StoreSettings.builder().url(url).table(table)
                .connectTimeout(Duration.ofSeconds(15)).build());
        opened.add(store);
        return store;
    }

    @AfterEach
    void drop() {
        opened.forEach(RedisIdempotencyStore::close);
        RedisTestServer.dropPrefix(prefix);
        RedisTestServer.dropPrefix(otherPrefix);
    }

    private static StoredResponse response(String body) {
        return new StoredResponse(200, Collections.emptyList(), body.getBytes(StandardCharsets.UTF_8));
    }

    @Test
    void storesWithDifferentTablesShareAServerWithoutMeeting() {
        RedisIdempotencyStore one = open(prefix);
        RedisIdempotencyStore other = open(otherPrefix);
        assertTrue(one.complete(one.reserve("t", "k", "fp").token(), response("one")));
        assertEquals(Outcome.ACQUIRED, other.reserve("t", "k", "another fp").outcome());
        assertEquals(Long.valueOf(1), one.countByStatus().get(KeyStatus.COMPLETED));
        assertFalse(one.countByStatus().containsKey(KeyStatus.IN_FLIGHT));
        assertEquals(Collections.singletonList(KeyStatus.IN_FLIGHT), statuses(other));
        RedisTestServer.setTime(prefix, "t", "k", "expires", -1);
        assertEquals(1, other.purgeExpired() + one.purgeExpired());
        assertFalse(one.find("t", "k").isPresent());
        assertTrue(other.find("t", "k").isPresent());
        assertNotEquals(Arrays.toString(one.installationSecret()), Arrays.toString(other.installationSecret()));
    }

    private static List<KeyStatus> statuses(RedisIdempotencyStore store) {
        List<KeyStatus> statuses = new ArrayList<>();
        store.list(KeyQuery.all(10)).forEach(r -> statuses.add(r.status()));
        return statuses;
    }

    @Test
    void scopeAndKeyAreEncodedSoThatNoSplitOfTheSameBytesCollides() {
        RedisIdempotencyStore store = open(prefix);
        String[][] pairs = {{"a:b", "c"}, {"a", "b:c"}, {"a:", "bc"}, {"", "1:aa"}, {"1:a", "a"}, {"{x}", "y"}, {"x", "}y{"}};
        Set<String> hashKeys = new HashSet<>();
        for (String[] pair : pairs) {
            Reservation r = store.reserve(pair[0], pair[1], "fp");
            assertEquals(Outcome.ACQUIRED, r.outcome(), pair[0] + " / " + pair[1]);
            assertTrue(store.complete(r.token(), response(pair[0] + "|" + pair[1])));
            hashKeys.add(RedisTestServer.hashKey(prefix, pair[0], pair[1]));
        }
        assertEquals(pairs.length, hashKeys.size());
        for (String[] pair : pairs) {
            assertEquals(pair[0] + "|" + pair[1], new String(store.reserve(pair[0], pair[1], "fp").response().body(), StandardCharsets.UTF_8));
            assertEquals(pair[0], store.find(pair[0], pair[1]).get().scope());
            assertEquals(pair[1], store.find(pair[0], pair[1]).get().key());
        }
        assertEquals(1, store.list(KeyQuery.all(10).inScope("a")).size(), "a scope's listing holds its own keys only");
        assertEquals(1, store.list(KeyQuery.all(10).inScope("a:")).size());
        assertEquals(1, store.list(KeyQuery.all(10).inScope("")).size());
    }

    @Test
    void everyRedisKeyOfOneKeyIsInOneClusterSlotAndTheBodyIsStoredAsItsBytes() {
        RedisIdempotencyStore store = open(prefix);
        byte[] body = new byte[256];
        for (int i = 0; i < body.length; i++) body[i] = (byte) i;
        Reservation r = store.reserve("tenant", "k{1}", "fp");
        assertTrue(store.complete(r.token(), new StoredResponse(201, Collections.emptyList(), body)));
        List<String> written = RedisTestServer.keysOf(prefix);
        Set<Integer> slots = new HashSet<>();
        for (String key : written) {
            if (key.startsWith("{")) slots.add(JedisClusterCRC16.getSlot(key));
        }
        // The hash, the bucket's lease, due, created and counts keys: one slot for the scripts to touch.
        assertEquals(1, slots.size(), written.toString());
        try (Jedis redis = RedisTestServer.connect()) {
            assertArrayEquals(body, redis.hget(RedisTestServer.hashKey(prefix, "tenant", "k{1}").getBytes(StandardCharsets.UTF_8),
                    "rbody".getBytes(StandardCharsets.UTF_8)));
        }
    }

    @Test
    void keysSpreadOverTheBuckets() {
        Set<Integer> buckets = new HashSet<>();
        for (int i = 0; i < 1000; i++) buckets.add(KeyLayout.bucket(KeyLayout.id("tenant", "order-" + i)));
        assertEquals(KeyLayout.BUCKETS, buckets.size());
    }

    @Test
    void theInstallationSecretIsWrittenOnceEvenWhenNodesRace() throws Exception {
        List<RedisIdempotencyStore> nodes = new ArrayList<>();
        for (int i = 0; i < 8; i++) nodes.add(open(prefix));
        List<Thread> threads = new ArrayList<>();
        List<byte[]> secrets = Collections.synchronizedList(new ArrayList<>());
        for (RedisIdempotencyStore node : nodes) threads.add(new Thread(() -> secrets.add(node.installationSecret())));
        threads.forEach(Thread::start);
        for (Thread t : threads) t.join(30_000);
        assertEquals(nodes.size(), secrets.size());
        for (byte[] secret : secrets) assertArrayEquals(secrets.get(0), secret);
    }

    @Test
    void noEffectMarkIsKeptButTheAnswerSaysWhetherTheTokenOwnsItsKey() {
        RedisIdempotencyStore store = open(prefix);
        Reservation r = store.reserve("t", "k", "fp");
        assertTrue(store.recordEffect(r.token(), dev.idempotency.store.EffectMark.Kind.EXTERNAL, "POST https://psp.example/charges"));
        assertFalse(store.recordEffect(new dev.idempotency.store.OwnershipToken("t", "k", "forged"),
                dev.idempotency.store.EffectMark.Kind.EXTERNAL, "x"));
        assertTrue(store.find("t", "k").get().effects().isEmpty());
        assertTrue(store.complete(r.token(), response("done")));
        assertFalse(store.recordEffect(r.token(), dev.idempotency.store.EffectMark.Kind.EXTERNAL, "after completion"));
    }

    @Test
    void aListingPastOneChunkOfABucketFindsItsKeysOldestFirst() {
        RedisIdempotencyStore store = open(prefix);
        // More keys in one bucket than a listing script looks at (1000), and then the wanted scope's, in that bucket too.
        int bucket = KeyLayout.bucket(KeyLayout.id("wanted", "w0"));
        int others = 0;
        for (int i = 0; others < 1100; i++) {
            if (KeyLayout.bucket(KeyLayout.id("other", "k" + i)) != bucket) continue;
            store.reserve("other", "k" + i, "fp");
            others++;
        }
        List<String> wantedKeys = new ArrayList<>();
        for (int i = 0; wantedKeys.size() < 5; i++) {
            if (KeyLayout.bucket(KeyLayout.id("wanted", "w" + i)) != bucket) continue;
            store.reserve("wanted", "w" + i, "fp");
            wantedKeys.add("w" + i);
        }
        List<dev.idempotency.store.KeyRecord> wanted = store.list(KeyQuery.all(100).inScope("wanted"));
        List<String> found = new ArrayList<>();
        wanted.forEach(r -> found.add(r.key()));
        assertEquals(new HashSet<>(wantedKeys), new HashSet<>(found));
        for (int i = 1; i < wanted.size(); i++) {
            assertFalse(wanted.get(i).createdAt().isBefore(wanted.get(i - 1).createdAt()), "oldest first");
        }
        assertEquals(1105, store.list(KeyQuery.all(5000)).size());
        assertEquals(3, store.list(KeyQuery.all(3).inScope("wanted")).size());
        assertEquals(Long.valueOf(1105), store.countByStatus().get(KeyStatus.IN_FLIGHT));
    }
}
