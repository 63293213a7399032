package dev.idempotency.store;

import dev.idempotency.store.jdbc.SchemaManager;
import dev.idempotency.store.jdbc.dialect.Dialect;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.time.Duration;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

class StoreSettingsTest {

    @Test
    void withoutAUrlTheEmbeddedH2DatabaseUnderTheHomeDirectoryIsUsed() {
        StoreSettings s = StoreSettings.builder().build();
        assertTrue(s.url().startsWith("jdbc:h2:file:" + System.getProperty("user.home")), s.url());
        assertEquals("h2", Dialect.forUrl(s.url()).name());
    }

    @Test
    void theDialectFollowsFromTheUrl() {
        assertEquals("postgresql", Dialect.forUrl("jdbc:postgresql://db/app").name());
        assertEquals("mysql", Dialect.forUrl("jdbc:mariadb://db/app").name());
        assertEquals("mysql", Dialect.forUrl("jdbc:mysql://db/app").name());
        StoreConfigurationException e = assertThrows(StoreConfigurationException.class,
                () -> Dialect.forUrl("jdbc:oracle:thin:@db?password=hunter2"));
        assertTrue(e.getMessage().contains("jdbc:postgresql:"), e.getMessage());
        assertFalse(e.getMessage().contains("hunter2"), "the password must never be shown: " + e.getMessage());
    }

    @Test
    void thePoolSizeUnsetIsTheFamilysOwnAndASetOneWins() {
        assertEquals(10, StoreSettings.builder().url("jdbc:postgresql://db/app").build().poolSize());
        assertEquals(10, StoreSettings.builder().build().poolSize(), "the embedded H2 database");
        assertEquals(32, StoreSettings.builder().url("redis://cache:6379").build().poolSize());
        assertEquals(32, StoreSettings.builder().url("redis-cluster://a:6379,b:6379").build().poolSize());
        assertEquals(4, StoreSettings.builder().url("redis://cache:6379").poolSize(4).build().poolSize());
        assertEquals(4, StoreSettings.builder().url("redis://cache:6379").poolSize(4).build().toBuilder().build()
                .poolSize(), "a copy keeps it");
    }

    @Test
    void thePasswordIsNeverShown() {
        StoreSettings s = StoreSettings.builder().url("jdbc:postgresql://db/app?user=u&password=hunter2").password("s3cret").build();
        assertFalse(s.toString().contains("hunter2"), s.toString());
        assertFalse(s.toString().contains("s3cret"), s.toString());
        assertTrue(s.redactedUrl().contains("password=***"), s.redactedUrl());
    }

    @ParameterizedTest
    @ValueSource(strings = {"drop table x", "a;b", "1abc", "a.b.c", "name-with-dash", ""})
    void unsafeTableNamesAreRefusedWithTheSettingNamed(String table) {
        StoreConfigurationException e = assertThrows(StoreConfigurationException.class, () -> StoreSettings.builder().table(table).build());
        assertTrue(e.getMessage().contains("'table'"), e.getMessage());
    }

    @Test
    void badNumbersAndDurationsAreRefusedWithWhatIsAccepted() {
        StoreConfigurationException pool = assertThrows(StoreConfigurationException.class, () -> StoreSettings.builder().poolSize(0).build());
        assertTrue(pool.getMessage().contains("pool-size") && pool.getMessage().contains("1 to 500"), pool.getMessage());
        StoreConfigurationException lease = assertThrows(StoreConfigurationException.class,
                () -> StoreSettings.builder().lease(Duration.ofMillis(5)).build());
        assertTrue(lease.getMessage().contains("lease"), lease.getMessage());
        assertThrows(StoreConfigurationException.class, () -> StoreSettings.builder().url("postgres://x").build());
    }

    @ParameterizedTest
    @ValueSource(strings = {"jdbc:h2:mem:x", "jdbc:postgresql://h/d", "jdbc:mariadb://h/d"})
    void theShippedDdlNamesTheConfiguredTableEverywhere(String url) {
        List<String> statements = SchemaManager.ddlStatements(Dialect.forUrl(url), "app.payments_keys");
        assertTrue(statements.size() >= 3, statements.toString());
        for (String statement : statements) {
            assertFalse(statement.contains("${"), statement);
            assertFalse(statement.trim().endsWith(";"), statement);
        }
        assertTrue(statements.get(0).startsWith("CREATE TABLE IF NOT EXISTS app.payments_keys ("), statements.get(0));
    }
    @Test
    void durationsAreBoundedToWhatEveryDatabasesTimestampArithmeticHolds() {
        StoreSettings defaults = StoreSettings.builder().build();
        assertEquals(Duration.ofDays(30), defaults.unknownRetention());
        StoreSettings longest = StoreSettings.builder().ttl(Duration.ofDays(365)).lease(Duration.ofHours(1))
                .unknownRetention(Duration.ofDays(3650)).build();
        assertEquals(Duration.ofDays(365), longest.ttl());
        assertEquals(Duration.ofHours(1), StoreSettings.builder().unknownRetention(Duration.ofHours(1)).build().unknownRetention());

        assertRefused("ttl", "365d", () -> StoreSettings.builder().ttl(Duration.ofDays(365).plusMillis(1)).build());
        assertRefused("ttl", "365d", () -> StoreSettings.builder().ttl(Duration.ofDays(365_000_000)).build());
        assertRefused("lease", "1h", () -> StoreSettings.builder().lease(Duration.ofMinutes(61)).build());
        assertRefused("unknown-retention", "3650d", () -> StoreSettings.builder().unknownRetention(Duration.ofDays(3651)).build());
        assertRefused("unknown-retention", "1h", () -> StoreSettings.builder().unknownRetention(Duration.ofMinutes(59)).build());
        assertRefused("unknown-retention", "1h", () -> StoreSettings.builder().unknownRetention(null).build());
        assertTrue(longest.toString().contains("unknownRetention=PT87600H"), longest.toString());
    }

    @Test
    void partitionWidthsDivideADayAndPartitionsAreForPostgresOnly() {
        for (java.time.Duration bad : new java.time.Duration[] {java.time.Duration.ofHours(7), java.time.Duration.ofDays(2),
                java.time.Duration.ofMillis(1500), java.time.Duration.ZERO}) {
            assertRefused("partitioning", "divides a day", () -> StoreSettings.builder().partitioning(bad).build());
        }
        assertEquals(java.time.Duration.ofHours(6), StoreSettings.builder().partitioning(java.time.Duration.ofHours(6)).build().partitioning());
        // Each statement by key opens every partition: a ttl may span at most 100 of them.
        assertRefused("partitioning", "use partitions at least 2h wide",
                () -> StoreSettings.builder().partitioning(java.time.Duration.ofHours(1)).ttl(java.time.Duration.ofDays(7)).build());
        assertRefused("partitioning", "at most 100d",
                () -> StoreSettings.builder().partitioning(java.time.Duration.ofDays(1)).ttl(java.time.Duration.ofDays(101)).build());
        StoreSettings.builder().partitioning(java.time.Duration.ofHours(1)).ttl(java.time.Duration.ofHours(100)).build();
        StoreSettings partitionedH2 = StoreSettings.builder().url("jdbc:h2:mem:partitioned").partitioning(java.time.Duration.ofDays(1)).build();
        StoreConfigurationException h2 = assertThrows(StoreConfigurationException.class,
                () -> dev.idempotency.store.families.StoreFamilies.open(partitionedH2));
        assertTrue(h2.getMessage().contains("PostgreSQL store only"), h2.getMessage());
        assertEquals(h2.getMessage(), dev.idempotency.store.families.StoreFamilies.refusal(partitionedH2));
        assertNull(dev.idempotency.store.families.StoreFamilies.refusal(StoreSettings.builder()
                .url("jdbc:postgresql://localhost/test").partitioning(java.time.Duration.ofDays(1)).build()));
    }

    @Test
    void aDriverPathNamesReadableFilesSeparatedByThePathSeparator(@org.junit.jupiter.api.io.TempDir java.nio.file.Path dir) throws Exception {
        String jar = java.nio.file.Files.createFile(dir.resolve("driver.jar")).toString();
        String other = java.nio.file.Files.createFile(dir.resolve("other.jar")).toString();
        assertNull(StoreSettings.builder().build().driverPath());
        assertNull(StoreSettings.builder().driverPath("  ").build().driverPath());
        assertEquals(jar, StoreSettings.builder().driverPath(" " + jar + " ").build().driverPath());
        String both = jar + java.io.File.pathSeparator + other;
        assertEquals(both, StoreSettings.builder().driverPath(both).build().driverPath());
        assertEquals(both, StoreSettings.builder().driverPath(both).build().toBuilder().build().driverPath());
        assertTrue(StoreSettings.builder().driverPath(jar).build().toString().contains("driverPath=" + jar));
        assertRefused("driver-path", "'" + dir.resolve("missing.jar") + "' is not a readable file",
                () -> StoreSettings.builder().driverPath(dir.resolve("missing.jar").toString()).build());
        assertRefused("driver-path", "'" + dir + "' is not a readable file", () -> StoreSettings.builder().driverPath(dir.toString()).build());
        assertRefused("driver-path", "'' is not a readable file",
                () -> StoreSettings.builder().driverPath(jar + java.io.File.pathSeparator).build());
    }

    private static void assertRefused(String setting, String bound, org.junit.jupiter.api.function.Executable build) {
        StoreConfigurationException e = assertThrows(StoreConfigurationException.class, build);
        assertTrue(e.getMessage().contains("'" + setting + "'") && e.getMessage().contains(bound), e.getMessage());
    }
}
