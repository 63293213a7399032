package dev.idempotency.store.redis;

import dev.idempotency.store.StoreSettings;
import org.junit.jupiter.api.Test;
import redis.clients.jedis.Jedis;

import java.time.Duration;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A Redis that would forget its keys on a restart is a caution at start-up (the agent logs it), never a refusal; one
 * with an append-only file is none. Each case on a redis-server of its own, started with the persistence it names.
 */
class RedisPersistenceCautionTest {

    private static List<String> cautionsOf(OwnRedis redis) {
        return cautionsOf(redis.url());
    }

    private static List<String> cautionsOf(String url) {
        StoreSettings settings = StoreSettings.builder().url(url).table(RedisTestServer.randomPrefix())
                .connectTimeout(Duration.ofSeconds(2)).queryTimeout(Duration.ofSeconds(2)).build();
        try (RedisIdempotencyStore store = RedisIdempotencyStore.open(settings)) {
            assertTrue(store.cautions().isEmpty(), "nothing is known before the store connected");
            store.checkSchema();
            return store.cautions();
        }
    }

    @Test
    void aServerWithoutPersistenceIsACautionNamingTheServerAndTheFix() throws Exception {
        try (OwnRedis redis = OwnRedis.start()) { // --save "" --appendonly no
            List<String> cautions = cautionsOf(redis);
            assertEquals(1, cautions.size(), cautions.toString());
            String caution = cautions.get(0);
            assertTrue(caution.startsWith("Redis at " + redis.url()), caution);
            assertTrue(caution.contains("no persistence: a restart forgets every key"), caution);
            assertTrue(caution.endsWith("-> appendonly yes"), caution);
        }
    }

    @Test
    void snapshotsAloneAreACautionThatTheLatestKeysAreLost() throws Exception {
        try (OwnRedis redis = OwnRedis.start("--save", "900 1")) {
            List<String> cautions = cautionsOf(redis);
            assertEquals(1, cautions.size(), cautions.toString());
            assertTrue(cautions.get(0).contains("RDB snapshots only (save 900 1)"), cautions.get(0));
        }
    }

    @Test
    void anAppendOnlyFileIsNoCaution() throws Exception {
        try (OwnRedis redis = OwnRedis.start("--appendonly", "yes")) {
            assertEquals(List.of(), cautionsOf(redis));
        }
    }

    @Test
    void aServerThatRefusesConfigIsACautionThatSaysSo() throws Exception {
        try (OwnRedis redis = OwnRedis.start("--rename-command", "CONFIG", "")) {
            List<String> cautions = cautionsOf(redis);
            assertEquals(1, cautions.size(), cautions.toString());
            assertTrue(cautions.get(0).contains("appendonly off (snapshots not readable)"), cautions.get(0));
        }
    }

    @Test
    void aUserRefusedThePersistenceSectionOfInfoStillStartsTheStoreWithACautionThatSaysSo() throws Exception {
        try (OwnRedis redis = OwnRedis.start("--appendonly", "yes")) {
            try (Jedis admin = redis.connect()) {
                // INFO's sections one by one (a deprecated but accepted form): the store's own checks read these two
                admin.aclSetUser("sections", "on", ">secret", "~*", "&*", "+@all", "-info", "+info|cluster", "+info|memory");
            }
            String url = "redis://sections:secret@127.0.0.1:" + redis.port;
            List<String> cautions = cautionsOf(url);
            assertEquals(1, cautions.size(), cautions.toString());
            assertTrue(cautions.get(0).contains("persistence not readable (INFO persistence refused)"), cautions.get(0));
            assertFalse(cautions.get(0).contains("secret"), cautions.get(0));
        }
    }
}
