package dev.idempotency.agent.core.config;

import dev.idempotency.store.ExpiredLeasePolicy;
import dev.idempotency.store.SchemaMode;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Collections;
import java.util.HashMap;
import java.util.Map;
import java.util.Properties;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

class AgentConfigTest {
    private static AgentConfig load(Properties system, Map<String, String> env) {
        return AgentConfig.load(ConfigSource.of(system, env));
    }

    private static Properties props(String... pairs) {
        Properties p = new Properties();
        for (int i = 0; i < pairs.length; i += 2) p.setProperty(pairs[i], pairs[i + 1]);
        return p;
    }

    @Test
    void methodsAreMatchedExactlyAsTheRequestNamesThem() {
        AgentConfig c = load(props("idempotency.methods", " put , Post,DELETE"), Collections.emptyMap());
        assertEquals("[PUT, POST, DELETE]", c.methods.toString());
        assertTrue(c.methods.contains("POST"));
        assertTrue(c.methods.contains(new String("DELETE".toCharArray())), "a method string made for the request");
        assertFalse(c.methods.contains("post"), "HTTP methods are case-sensitive");
        assertFalse(c.methods.contains("PATCH"));
        assertFalse(c.methods.contains(null));
    }

    @Test
    void theDefaultsAreTheDocumentedOnes() {
        AgentConfig c = load(new Properties(), Collections.emptyMap());
        assertEquals("[POST, PATCH]", c.methods.toString());
        assertEquals("Idempotency-Key", c.header);
        assertEquals(255, c.keyMaxLength);
        assertEquals("auto", c.tenant.toString());
        assertEquals(1024 * 1024, c.maxRequestBytes);
        assertEquals(1024 * 1024, c.maxResponseBytes);
        assertFalse(c.storeServerErrors);
        assertEquals(AgentConfig.FailureMode.CLOSED, c.failureMode);
        assertEquals(Duration.ofSeconds(30), c.store.lease());
        assertEquals(Duration.ofHours(24), c.store.ttl());
        assertEquals(ExpiredLeasePolicy.RECONCILE, c.store.expiredLeasePolicy());
        assertEquals(SchemaMode.CREATE, c.store.schemaMode());
        assertTrue(c.store.url().startsWith("jdbc:h2:file:"), c.store.url());
        assertTrue(c.include.matches("/anything/at/all"));
        assertTrue(c.required.isEmpty());
        assertTrue(c.store.groupCommit());
        assertEquals(Math.max(Runtime.getRuntime().maxMemory() / 100 * 10, 2 * c.maxRequestBytes), c.memoryBudgetBytes);
    }

    @Test
    void theMemoryBudgetIsASizeOrAShareOfTheHeap() {
        assertEquals(64L * 1024 * 1024, load(props("idempotency.memory-budget", "64MiB"), Collections.emptyMap()).memoryBudgetBytes);
        assertEquals(Math.max(Runtime.getRuntime().maxMemory() / 100 * 25, 2L * 1024 * 1024),
                load(props("idempotency.memory-budget", "25%"), Collections.emptyMap()).memoryBudgetBytes);
        assertFalse(load(props("idempotency.store.group-commit", "false"), Collections.emptyMap()).store.groupCommit());
        assertEquals(Duration.ofSeconds(30), load(new Properties(), Collections.emptyMap()).memoryWait);
        assertEquals(Duration.ZERO, load(props("idempotency.memory-wait", "0s"), Collections.emptyMap()).memoryWait);
        assertThrows(ConfigException.class, () -> load(props("idempotency.memory-wait", "2m"), Collections.emptyMap()));
    }

    @Test
    void partitioningIsNoneDailyHourlyOrAWidthDividingADayAndOnlyForPostgres() {
        String pg = "jdbc:postgresql://db/app";
        assertNull(load(new Properties(), Collections.emptyMap()).store.partitioning());
        assertEquals(Duration.ofDays(1), load(props("idempotency.store.url", pg, "idempotency.store.partitioning", "daily"), Collections.emptyMap()).store.partitioning());
        assertEquals(Duration.ofHours(1), load(props("idempotency.store.url", pg, "idempotency.store.partitioning", "Hourly"), Collections.emptyMap()).store.partitioning());
        assertEquals(Duration.ofHours(6), load(props("idempotency.store.url", pg, "idempotency.store.partitioning", "6h"), Collections.emptyMap()).store.partitioning());
        assertNull(load(props("idempotency.store.url", pg, "idempotency.store.partitioning", "none"), Collections.emptyMap()).store.partitioning());
        assertTrue(load(props("idempotency.store.url", pg, "idempotency.store.partitioning", "daily"), Collections.emptyMap()).summary()
                .contains("store.partitioning=daily"));
        for (String bad : new String[] {"7h", "2d", "500ms", "weekly", "0s"}) {
            ConfigException e = assertThrows(ConfigException.class,
                    () -> load(props("idempotency.store.url", pg, "idempotency.store.partitioning", bad), Collections.emptyMap()), bad);
            assertTrue(e.getMessage().contains("'idempotency.store.partitioning'") && e.getMessage().contains("divides a day"), e.getMessage());
        }
        ConfigException h2 = assertThrows(ConfigException.class,
                () -> load(props("idempotency.store.partitioning", "daily"), Collections.emptyMap()));
        assertTrue(h2.getMessage().contains("PostgreSQL store only") && h2.getMessage().contains("h2"), h2.getMessage());
    }

    @Test
    void replicaAcksReachesARedisStoreAndIsRefusedForADatabase() {
        String sentinel = "redis-sentinel://s1:26379,s2:26379/primary";
        assertEquals(0, load(props("idempotency.store.url", sentinel), Collections.emptyMap()).store.replicaAcks());
        assertEquals(2, load(props("idempotency.store.url", sentinel, "idempotency.store.replica-acks", "2"),
                Collections.emptyMap()).store.replicaAcks());
        for (String bad : new String[] {"-1", "17", "all"}) {
            ConfigException e = assertThrows(ConfigException.class, () -> load(props("idempotency.store.url", sentinel,
                    "idempotency.store.replica-acks", bad), Collections.emptyMap()), bad);
            assertTrue(e.getMessage().contains("'idempotency.store.replica-acks'") && e.getMessage().contains("0 to 16"), e.getMessage());
        }
        ConfigException pg = assertThrows(ConfigException.class, () -> load(props("idempotency.store.url",
                "jdbc:postgresql://db/app", "idempotency.store.replica-acks", "1"), Collections.emptyMap()));
        assertTrue(pg.getMessage().contains("'idempotency.store.replica-acks' applies to a Redis store only"), pg.getMessage());
    }

    @Test
    void aDriverPathNamesJarsForJdbcStoresAndShowsAtStartUp(@TempDir Path dir) throws Exception {
        String jar = Files.createFile(dir.resolve("mariadb-java-client.jar")).toString();
        String mariadb = "jdbc:mariadb://db/app";
        assertNull(load(new Properties(), Collections.emptyMap()).store.driverPath());
        AgentConfig given = load(props("idempotency.store.url", mariadb), Collections.singletonMap("IDEMPOTENCY_STORE_DRIVER_PATH", jar));
        assertEquals(jar, given.store.driverPath());
        assertTrue(given.summary().contains("store.driver-path=" + jar), given.summary());
        ConfigException missing = assertThrows(ConfigException.class,
                () -> load(props("idempotency.store.url", mariadb, "idempotency.store.driver-path", dir.resolve("none.jar").toString()),
                        Collections.emptyMap()));
        assertTrue(missing.getMessage().contains("setting 'idempotency.store.driver-path' is '" + dir.resolve("none.jar") + "'")
                && missing.getMessage().contains("is not a readable file"), missing.getMessage());
        ConfigException redis = assertThrows(ConfigException.class,
                () -> load(props("idempotency.store.url", "redis://cache:6379", "idempotency.store.driver-path", jar), Collections.emptyMap()));
        assertTrue(redis.getMessage().contains("setting 'idempotency.store.driver-path' applies to a JDBC store only"), redis.getMessage());
    }

    @Test
    void aMemoryBudgetThatCannotHoldTheLargestBodyOrIsMalformedIsRefusedByName() {
        ConfigException small = assertThrows(ConfigException.class,
                () -> load(props("idempotency.memory-budget", "1MiB", "idempotency.max-request-bytes", "1MiB"), Collections.emptyMap()));
        assertTrue(small.getMessage().contains("'idempotency.memory-budget'") && small.getMessage().contains("twice"), small.getMessage());
        for (String bad : new String[] {"0%", "95%", "lots", "-5MiB"}) {
            ConfigException e = assertThrows(ConfigException.class, () -> load(props("idempotency.memory-budget", bad), Collections.emptyMap()));
            assertTrue(e.getMessage().contains("'idempotency.memory-budget' is '" + bad + "'"), e.getMessage());
        }
    }

    @Test
    void theStorePoolSizeUnsetIsTheStoreFamilysDefault() {
        assertEquals(10, load(props(), Collections.emptyMap()).store.poolSize(), "the embedded H2 database");
        assertEquals(32, load(props("idempotency.store.url", "redis://cache:6379"), Collections.emptyMap()).store
                .poolSize());
        assertEquals(12, load(props("idempotency.store.url", "redis://cache:6379", "idempotency.store.pool-size", "12"),
                Collections.emptyMap()).store.poolSize(), "a set size wins");
    }

    @Test
    void systemPropertiesBeatEnvironmentWhichBeatsTheFile(@TempDir Path dir) throws Exception {
        Path file = dir.resolve("agent.properties");
        Files.write(file, "idempotency.lease=10s\nidempotency.ttl=2h\nidempotency.header=X-File\n".getBytes());
        Map<String, String> env = new HashMap<>();
        env.put("IDEMPOTENCY_CONFIG", file.toString());
        env.put("IDEMPOTENCY_TTL", "3h");
        env.put("IDEMPOTENCY_STORE_POOL_SIZE", "4");
        AgentConfig c = load(props("idempotency.ttl", "4h"), env);
        assertEquals(Duration.ofSeconds(10), c.store.lease(), "from the file");
        assertEquals(Duration.ofHours(4), c.store.ttl(), "the system property wins");
        assertEquals(4, c.store.poolSize(), "from the environment, with - and . as _");
        assertEquals("X-File", c.header);
    }

    @Test
    void durationsAndSizesAcceptTheDocumentedUnits() {
        AgentConfig c = load(props("idempotency.lease", "1500ms", "idempotency.ttl", "7d", "idempotency.max-request-bytes", "512KiB",
                "idempotency.max-response-bytes", "2mb", "idempotency.sweep-interval", "5m"), Collections.emptyMap());
        assertEquals(Duration.ofMillis(1500), c.store.lease());
        assertEquals(Duration.ofDays(7), c.store.ttl());
        assertEquals(512 * 1024, c.maxRequestBytes);
        assertEquals(2_000_000, c.maxResponseBytes);
        assertEquals(Duration.ofMinutes(5), c.sweepInterval);
    }

    @Test
    void everyBadValueIsNamedWithWhatIsAccepted() {
        ConfigException e = assertThrows(ConfigException.class, () -> load(props("idempotency.lease", "30", "idempotency.tenant", "tenant",
                "idempotency.failure-mode", "maybe", "idempotency.methods", "POST,GE T"), Collections.emptyMap()));
        String m = e.getMessage();
        assertTrue(m.contains("'idempotency.lease' is '30'") && m.contains("such as 500ms, 30s"), m);
        assertTrue(m.contains("'idempotency.tenant' is 'tenant'") && m.contains("header:NAME"), m);
        assertTrue(m.contains("'idempotency.failure-mode' is 'maybe'") && m.contains("closed or open"), m);
        assertTrue(m.contains("'idempotency.methods'"), m);
        assertTrue(m.contains("(from system property idempotency.lease)"), m);
    }

    @Test
    void storeSettingsAreValidatedAndThePasswordNeverShown() {
        ConfigException badUrl = assertThrows(ConfigException.class,
                () -> load(props("idempotency.store.url", "jdbc:oracle:thin:@x", "idempotency.store.password", "hunter2"), Collections.emptyMap()));
        assertTrue(badUrl.getMessage().contains("jdbc:postgresql:"), badUrl.getMessage());
        ConfigException badTable = assertThrows(ConfigException.class, () -> load(props("idempotency.store.table", "x;drop"), Collections.emptyMap()));
        assertTrue(badTable.getMessage().contains("'idempotency.store.table'"), badTable.getMessage());
        AgentConfig ok = load(props("idempotency.store.url", "jdbc:postgresql://db/app", "idempotency.store.password", "hunter2"), Collections.emptyMap());
        assertFalse(ok.summary().contains("hunter2"), ok.summary());
    }

    @Test
    void durationsHaveUpperBoundsEveryDatabaseCanTake() {
        ConfigException e = assertThrows(ConfigException.class, () -> load(props("idempotency.ttl", "100000d", "idempotency.lease", "2h",
                "idempotency.unknown-retention", "5000d", "idempotency.abandoned-work-grace", "2d"), Collections.emptyMap()));
        assertTrue(e.getMessage().contains("'idempotency.ttl' is '100000d'") && e.getMessage().contains("to 365d"), e.getMessage());
        assertTrue(e.getMessage().contains("'idempotency.lease' is '2h'") && e.getMessage().contains("to 1h"), e.getMessage());
        assertTrue(e.getMessage().contains("'idempotency.unknown-retention' is '5000d'"), e.getMessage());
        assertTrue(e.getMessage().contains("'idempotency.abandoned-work-grace' is '2d'"), e.getMessage());
        AgentConfig max = load(props("idempotency.ttl", "365d", "idempotency.lease", "1h"), Collections.emptyMap());
        assertEquals(Duration.ofDays(365), max.store.ttl());
    }

    @Test
    void unknownKeysAreKeptThirtyDaysByDefaultAndTheStartUpLineSaysSo() {
        AgentConfig c = load(new Properties(), Collections.emptyMap());
        assertEquals(Duration.ofDays(30), c.store.unknownRetention());
        assertTrue(c.summary().contains("unknown-retention=30d"), c.summary());
        assertEquals(Duration.ofDays(3), load(props("idempotency.unknown-retention", "3d"), Collections.emptyMap()).store.unknownRetention());
    }

    @Test
    void temporaryStatusesApplicationFiltersAndCredentialNames() {
        AgentConfig c = load(new Properties(), Collections.emptyMap());
        assertEquals("[408, 425, 429]", c.retryStatuses.toString());
        assertTrue(c.applicationFilters.isEmpty());
        assertTrue(c.credentialHeaders.matches("x-api-key"));
        assertTrue(c.credentialCookies.matches("JSESSIONID"));
        AgentConfig custom = load(props("idempotency.retry-statuses", "429, 409", "idempotency.application-filters", "com.acme.web.ActionFilter",
                "idempotency.tenant.credential-headers", "X-Customer-Key", "idempotency.tenant.credential-cookies", "acme_login"), Collections.emptyMap());
        assertEquals("[429, 409]", custom.retryStatuses.toString());
        assertEquals("[com.acme.web.ActionFilter]", custom.applicationFilters.toString());
        assertTrue(custom.credentialHeaders.matches("X-Customer-Key") && !custom.credentialHeaders.matches("X-API-Key"));
        assertTrue(custom.credentialCookies.matches("ACME_LOGIN") && !custom.credentialCookies.matches("JSESSIONID"));
        ConfigException e = assertThrows(ConfigException.class, () -> load(props("idempotency.retry-statuses", "503",
                "idempotency.application-filters", "not a class", "idempotency.tenant.credential-headers", "X-*"), Collections.emptyMap()));
        assertTrue(e.getMessage().contains("'idempotency.retry-statuses' is '503'"), e.getMessage());
        assertTrue(e.getMessage().contains("'idempotency.application-filters' is 'not a class'"), e.getMessage());
        assertTrue(e.getMessage().contains("'idempotency.tenant.credential-headers' is 'X-*'"), e.getMessage());
    }

    @Test
    void aTtlShorterThanTheLeaseIsRefused() {
        ConfigException e = assertThrows(ConfigException.class, () -> load(props("idempotency.ttl", "10s", "idempotency.lease", "1m"), Collections.emptyMap()));
        assertTrue(e.getMessage().contains("idempotency.ttl"), e.getMessage());
    }

    @Test
    void anUnreadableConfigFileIsNamed() {
        ConfigException e = assertThrows(ConfigException.class, () -> load(props("idempotency.config", "/no/such/file.properties"), Collections.emptyMap()));
        assertTrue(e.getMessage().contains("/no/such/file.properties"), e.getMessage());
    }

    @Test
    void unknownSettingsAreReportedAsLikelyTypos() {
        AgentConfig c = load(props("idempotency.leases", "5s", "idempotency.lease", "5s"), Collections.emptyMap());
        assertEquals("[idempotency.leases]", c.unknownSettings().toString());
    }

    @Test
    void transactionRecoveryIsChosenUnderEitherName() {
        assertEquals(ExpiredLeasePolicy.TRANSACTION,
                load(props("idempotency.on-expired-lease", "transaction"), Collections.emptyMap()).store.expiredLeasePolicy());
        assertEquals(ExpiredLeasePolicy.TRANSACTION,
                load(props("idempotency.recovery", "transaction"), Collections.emptyMap()).store.expiredLeasePolicy());
        assertEquals(ExpiredLeasePolicy.TRANSACTION, load(new Properties(), Collections.singletonMap("IDEMPOTENCY_RECOVERY", "transaction"))
                .store.expiredLeasePolicy());
        assertEquals(ExpiredLeasePolicy.TRANSACTION, load(props("idempotency.recovery", "transaction", "idempotency.on-expired-lease",
                "transaction"), Collections.emptyMap()).store.expiredLeasePolicy());
        ConfigException both = assertThrows(ConfigException.class, () -> load(props("idempotency.recovery", "transaction",
                "idempotency.on-expired-lease", "retry"), Collections.emptyMap()));
        assertTrue(both.getMessage().contains("'idempotency.recovery' (transaction) and 'idempotency.on-expired-lease' (retry)"), both.getMessage());
        ConfigException bad = assertThrows(ConfigException.class, () -> load(props("idempotency.recovery", "undo"), Collections.emptyMap()));
        assertTrue(bad.getMessage().contains("expected reconcile, retry or transaction"), bad.getMessage());
    }
}
