package dev.idempotency.store.redis;

import dev.idempotency.store.ExpiredLeasePolicy;
import dev.idempotency.store.StoreConfigurationException;
import dev.idempotency.store.StoreSettings;
import dev.idempotency.store.families.StoreFamilies;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.time.Duration;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** Redis URLs as settings: parsed, redacted, and what the Redis family refuses before anything connects. */
class RedisSettingsTest {

    private static RedisEndpoint endpoint(StoreSettings.Builder settings) {
        return RedisEndpoint.of(settings.build());
    }

    @Test
    void aPlainUrlNamesHostPortAndDatabaseWithDefaults() {
        RedisEndpoint bare = endpoint(StoreSettings.builder().url("redis://cache.internal"));
        assertEquals("cache.internal", bare.host);
        assertEquals(6379, bare.port);
        assertEquals(0, bare.database);
        assertFalse(bare.tls);
        assertNull(bare.user);
        assertNull(bare.password);

        RedisEndpoint full = endpoint(StoreSettings.builder().url("rediss://app:s%40cret%3A1@[::1]:6380/3"));
        assertEquals("::1", full.host);
        assertEquals(6380, full.port);
        assertEquals(3, full.database);
        assertTrue(full.tls);
        assertEquals("app", full.user);
        assertEquals("s@cret:1", full.password, "percent-encoded user information is decoded");
    }

    @Test
    void aPasswordAloneInTheUrlAuthenticatesTheDefaultUser() {
        RedisEndpoint e = endpoint(StoreSettings.builder().url("redis://:only-a-password@db:6379"));
        assertNull(e.user);
        assertEquals("only-a-password", e.password);
    }

    @Test
    void theUserAndPasswordSettingsWinOverTheUrls() {
        RedisEndpoint e = endpoint(StoreSettings.builder().url("redis://url-user:url-pass@db").user("acl-user").password("from-env"));
        assertEquals("acl-user", e.user);
        assertEquals("from-env", e.password);
    }

    @Test
    void thePasswordIsNeverShown() {
        StoreSettings s = StoreSettings.builder().url("redis://app:hunter2@db:6379/1").password("s3cret").build();
        for (String shown : new String[] {s.toString(), s.redactedUrl(), RedisEndpoint.of(s).toString()}) {
            assertFalse(shown.contains("hunter2"), shown);
            assertFalse(shown.contains("s3cret"), shown);
        }
        assertEquals("redis://app:***@db:6379/1", s.redactedUrl());
        assertEquals("rediss://:***@db", StoreSettings.redacted("rediss://:pw@db"));
        assertEquals("redis://db:6379", StoreSettings.redacted("redis://db:6379"), "nothing to hide, nothing changed");
        assertEquals("jdbc:mysql://app:***@db/shop", StoreSettings.redacted("jdbc:mysql://app:hunter2@db/shop"), "the same in a JDBC URL");
        assertEquals("redis://app:***@db:6379", StoreSettings.redacted("redis://app:ab/cd?e#f@db:6379"),
                "a password with the characters that end a URL's parts, not encoded, is hidden whole");
    }

    @ParameterizedTest
    @ValueSource(strings = {"redis://", "redis://db:6379/zero", "redis://db:6379/-1", "redis://db:6379?password=hunter2",
            "redis://app:hunter2@db:6379/x y", "redis://app:hun/ter2@db:6379/x"})
    void malformedRedisUrlsAreRefusedWithTheShapeExpectedAndNoPassword(String url) {
        StoreSettings settings = StoreSettings.builder().url(url).build();
        String refusal = StoreFamilies.refusal(settings);
        assertTrue(refusal != null && refusal.contains("redis://[user:password@]host[:port][/db]"), String.valueOf(refusal));
        assertFalse(refusal.contains("ter2"), refusal);
        StoreConfigurationException opened = assertThrows(StoreConfigurationException.class, () -> StoreFamilies.open(settings));
        assertEquals(refusal, opened.getMessage());
    }

    @Test
    void aSentinelUrlNamesItsSentinelsTheMasterAndTheDatabase() {
        RedisEndpoint e = endpoint(StoreSettings.builder()
                .url("redis-sentinel://app:s%40cret@s1.internal,s2.internal:26380,[::1]:26381/my%20master/2"));
        assertTrue(e.viaSentinel());
        assertEquals("my master", e.masterName);
        assertEquals(2, e.database);
        assertEquals("app", e.user);
        assertEquals("s@cret", e.password);
        assertFalse(e.tls);
        assertEquals(3, e.sentinels.size());
        assertEquals("s1.internal:26379 s2.internal:26380 ::1:26381", e.sentinels.get(0)[0] + ":" + e.sentinels.get(0)[1]
                + " " + e.sentinels.get(1)[0] + ":" + e.sentinels.get(1)[1] + " " + e.sentinels.get(2)[0] + ":" + e.sentinels.get(2)[1]);
        assertEquals("redis-sentinel://app@s1.internal:26379,s2.internal:26380,[::1]:26381/my master/2", e.toString());
        RedisEndpoint tls = endpoint(StoreSettings.builder().url("rediss-sentinel://s1/primary").password("from-env"));
        assertTrue(tls.tls && tls.viaSentinel());
        assertEquals(0, tls.database);
        assertEquals("from-env", tls.password);
        assertNull(StoreFamilies.refusal(StoreSettings.builder().url("redis-sentinel://s1:26379,s2:26379/primary").build()));
        RedisEndpoint slashInPassword = endpoint(StoreSettings.builder().url("redis-sentinel://app:hun/ter2@s1:26380/primary"));
        assertEquals("hun/ter2", slashInPassword.password);
        assertEquals("s1", slashInPassword.sentinels.get(0)[0]);
        StoreSettings hidden = StoreSettings.builder().url("redis-sentinel://app:hunter2@s1,s2/primary").build();
        assertEquals("redis-sentinel://app:***@s1,s2/primary", hidden.redactedUrl());
        assertFalse(RedisEndpoint.of(hidden).toString().contains("hunter2"));
    }

    @ParameterizedTest
    @ValueSource(strings = {"redis-sentinel://s1:26379", "redis-sentinel://s1:26379/", "redis-sentinel://app:hunter2@s1,,s2/m",
            "redis-sentinel://s1:0/m", "redis-sentinel://s1:port/m", "redis-sentinel://s1/m/zero", "redis-sentinel://s1/m/1/2",
            "redis-sentinel://app:hunter2@s1/m?db=1", "rediss-sentinel://[::1/m", "redis-sentinel://app:hun%zzter2@s1/m"})
    void malformedSentinelUrlsAreRefusedWithTheShapeExpectedAndNoPassword(String url) {
        StoreSettings settings = StoreSettings.builder().url(url).build();
        String refusal = StoreFamilies.refusal(settings);
        assertTrue(refusal != null && refusal.contains("redis-sentinel://[user:password@]host[:port][,host[:port]...]/master-name[/db]"),
                String.valueOf(refusal));
        assertFalse(refusal.contains("hunter2"), refusal);
    }

    @Test
    void aClusterUrlNamesItsSeedNodesOnDatabaseZero() {
        RedisEndpoint e = endpoint(StoreSettings.builder().url("redis-cluster://app:s%40cret@n1.internal,n2.internal:7001,[::1]:7002"));
        assertTrue(e.cluster());
        assertFalse(e.viaSentinel());
        assertEquals(0, e.database);
        assertEquals("app", e.user);
        assertEquals("s@cret", e.password);
        assertEquals(3, e.clusterSeeds.size());
        assertEquals("n1.internal:6379 n2.internal:7001 ::1:7002", e.clusterSeeds.get(0)[0] + ":" + e.clusterSeeds.get(0)[1]
                + " " + e.clusterSeeds.get(1)[0] + ":" + e.clusterSeeds.get(1)[1] + " " + e.clusterSeeds.get(2)[0] + ":"
                + e.clusterSeeds.get(2)[1]);
        assertEquals("redis-cluster://app@n1.internal:6379,n2.internal:7001,[::1]:7002", e.toString());
        RedisEndpoint tls = endpoint(StoreSettings.builder().url("rediss-cluster://n1/").password("from-env"));
        assertTrue(tls.tls && tls.cluster());
        assertEquals("from-env", tls.password);
        StoreSettings hidden = StoreSettings.builder().url("redis-cluster://app:hunter2@n1,n2").build();
        assertEquals("redis-cluster://app:***@n1,n2", hidden.redactedUrl());
        assertFalse(RedisEndpoint.of(hidden).toString().contains("hunter2"));
        assertNull(StoreFamilies.refusal(StoreSettings.builder().url("redis-cluster://n1:7000,n2:7000").build()));
    }

    @ParameterizedTest
    @ValueSource(strings = {"redis-cluster://n1:7000/1", "redis-cluster://app:hunter2@n1,,n2", "redis-cluster://n1:0",
            "redis-cluster://n1:port", "redis-cluster://app:hunter2@n1?db=1", "rediss-cluster://[::1", "redis-cluster://",
            "redis-cluster://app:hun%zzter2@n1"})
    void malformedClusterUrlsAreRefusedWithTheShapeExpectedAndNoPassword(String url) {
        String refusal = StoreFamilies.refusal(StoreSettings.builder().url(url).build());
        assertTrue(refusal != null && refusal.contains("redis-cluster://[user:password@]host[:port][,host[:port]...]"),
                String.valueOf(refusal));
        assertFalse(refusal.contains("hunter2"), refusal);
    }

    @Test
    void aUrlOfNeitherFamilyIsRefusedNamingBoth() {
        StoreConfigurationException e = assertThrows(StoreConfigurationException.class,
                () -> StoreSettings.builder().url("mongodb://app:hunter2@db/x").build());
        assertTrue(e.getMessage().contains("jdbc:postgresql:") && e.getMessage().contains("redis://"), e.getMessage());
        assertFalse(e.getMessage().contains("hunter2"), e.getMessage());
    }

    @Test
    void recoveryTransactionIsRefusedForRedisWithWhatItTakes() {
        StoreSettings settings = StoreSettings.builder().url("redis://db").expiredLeasePolicy(ExpiredLeasePolicy.TRANSACTION).build();
        String refusal = StoreFamilies.refusal(settings);
        assertTrue(refusal.contains("'recovery' is 'transaction'") && refusal.contains("'reconcile' or 'retry'"), refusal);
        assertThrows(StoreConfigurationException.class, () -> StoreFamilies.open(settings));
    }

    @Test
    void partitioningIsRefusedForRedis() {
        StoreSettings settings = StoreSettings.builder().url("redis://db").partitioning(Duration.ofHours(1)).build();
        String refusal = StoreFamilies.refusal(settings);
        assertTrue(refusal.startsWith("store setting 'partitioning' applies to a PostgreSQL store only"), refusal);
        assertTrue(refusal.contains("Redis"), refusal);
    }

    @Test
    void aDriverPathIsRefusedForRedis(@org.junit.jupiter.api.io.TempDir java.nio.file.Path dir) throws Exception {
        String jar = java.nio.file.Files.createFile(dir.resolve("driver.jar")).toString();
        String refusal = StoreFamilies.refusal(StoreSettings.builder().url("redis://db").driverPath(jar).build());
        assertTrue(refusal.startsWith("store setting 'driver-path' applies to a JDBC store only; the store is Redis"), refusal);
    }

    @Test
    void reconcileAndRetryAreAccepted() {
        for (ExpiredLeasePolicy policy : new ExpiredLeasePolicy[] {ExpiredLeasePolicy.RECONCILE, ExpiredLeasePolicy.RETRY}) {
            assertNull(StoreFamilies.refusal(StoreSettings.builder().url("rediss://u:p@db:6380/2").expiredLeasePolicy(policy).build()));
        }
    }

    @Test
    void theFrontDoorOpensARedisStoreWithoutConnecting() {
        // Nothing listens there: opening must not connect (the first use does).
        try (dev.idempotency.store.IdempotencyStore store = StoreFamilies.open(StoreSettings.builder().url("redis://127.0.0.1:1").build())) {
            assertEquals("Redis", store.dialectName());
            assertEquals(0, store.connectionsInUse());
        }
    }
}
