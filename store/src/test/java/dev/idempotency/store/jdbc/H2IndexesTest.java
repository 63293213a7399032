package dev.idempotency.store.jdbc;

import dev.idempotency.store.Reservation;
import dev.idempotency.store.StoreSettings;
import dev.idempotency.store.jdbc.dialect.Dialect;
import dev.idempotency.store.testing.VersionOneSchema;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The embedded H2 table's secondary indexes: every commit writes each index its statements changed to the file, so
 * the table has only the one its sweeps and purges need. A table made by an earlier release (three indexes, each led by
 * status) keeps that one and loses the other two when the store starts.
 */
class H2IndexesTest {
    /** The rows EXPLAIN ANALYZE says a read went through. */
    private static final Pattern SCAN_COUNT = Pattern.compile("scanCount: (\\d+)");
    /** The comment H2's plan gives each read of the key table (not of its effect marks): its index and conditions, or a scan. */
    private static final Pattern TABLE_ACCESS = Pattern.compile("/\\* PUBLIC\\.KEYS(\\.tableScan|_(?!EFFECTS)\\w+)[^*]*\\*/");
    @TempDir
    Path directory;

    private String url() {
        return "jdbc:h2:file:" + directory.resolve("store").toAbsolutePath();
    }

    @Test
    void aNewTableHasTheOneIndexItsSweepsAndPurgesNeed() throws SQLException {
        try (JdbcIdempotencyStore store = JdbcIdempotencyStore.open(StoreSettings.builder().url(url()).table("keys").build())) {
            store.checkSchema();
        }
        assertEquals(new TreeSet<>(Arrays.asList("KEYS_EXPIRY_IDX")), secondaryIndexes("PUBLIC", "KEYS"));
    }

    @Test
    void aTableOfAnEarlierReleaseInItsOwnSchemaTradesItsThreeIndexesForOneAndKeepsItsKeys() throws SQLException {
        try (Connection c = DriverManager.getConnection(url()); Statement s = c.createStatement()) {
            s.execute("CREATE SCHEMA app");
            for (String statement : VersionOneSchema.statements("h2", "app.keys", "keys")) s.execute(statement);
            s.execute("INSERT INTO app.keys (scope, idem_key, fingerprint, status, response_status, response_headers, response_body, "
                    + "attempts, created_at, updated_at, expires_at) VALUES ('t', 'old', 'fp', 'COMPLETED', 201, '[]', X'6f6b', 1, "
                    + "CURRENT_TIMESTAMP, CURRENT_TIMESTAMP, DATEADD(DAY, 1, CURRENT_TIMESTAMP))");
        }
        assertEquals(new TreeSet<>(Arrays.asList("KEYS_EXPIRY_IDX", "KEYS_LEASE_IDX", "KEYS_UPDATED_IDX")), secondaryIndexes("APP", "KEYS"),
                "the earlier release's indexes, to begin with");

        try (JdbcIdempotencyStore store = JdbcIdempotencyStore.open(StoreSettings.builder().url(url()).table("app.keys").build())) {
            store.checkSchema();
            Reservation replay = store.reserve("t", "old", "fp");
            assertEquals(Reservation.Outcome.REPLAY, replay.outcome());
            assertEquals("ok", new String(replay.response().body(), StandardCharsets.UTF_8));
        }
        assertEquals(new TreeSet<>(Arrays.asList("KEYS_EXPIRY_IDX")), secondaryIndexes("APP", "KEYS"));
    }

    @Test
    void theSweepsAndPurgesReadTheIndexByStatusAndThePurgeOnlyExpiredKeys() throws SQLException {
        try (JdbcIdempotencyStore store = JdbcIdempotencyStore.open(StoreSettings.builder().url(url()).table("keys").build())) {
            store.checkSchema();
        }
        Sql sql = new Sql(Dialect.forUrl(url()), "keys", 100, Duration.ofDays(30).toMillis(), 30_000, 86_400_000, false);
        Map<String, String> statements = new LinkedHashMap<>();
        statements.put("sweep to unknown", sql.sweepToUnknown);
        statements.put("sweep to retryable", sql.sweepToRetryable);
        statements.put("expired leases", sql.expiredLeases);
        statements.put("purge of completed keys", sql.purge.get(0));
        statements.put("purge of retryable keys", sql.purge.get(1));
        statements.put("purge of unknown keys", sql.purgeUnknown);
        statements.put("purge of effect marks", sql.purgeEffects);
        try (Connection c = DriverManager.getConnection(url()); Statement s = c.createStatement()) {
            // Mostly completed keys, as a table under load holds, and statistics that say so.
            s.execute("INSERT INTO keys (scope, idem_key, fingerprint, status, owner_token, lease_expires_at, attempts, created_at, "
                    + "updated_at, expires_at) SELECT 's', 'k' || X, 'fp', CASEWHEN(MOD(X, 100) = 0, 'IN_FLIGHT', 'COMPLETED'), 'o', "
                    + "CASEWHEN(MOD(X, 100) = 0, DATEADD(SECOND, 30, CURRENT_TIMESTAMP), NULL), 1, CURRENT_TIMESTAMP, CURRENT_TIMESTAMP, "
                    + "DATEADD(SECOND, X, CURRENT_TIMESTAMP) FROM SYSTEM_RANGE(1, 5000)");
            s.execute("ANALYZE TABLE keys");
            for (Map.Entry<String, String> statement : statements.entrySet()) {
                String plan = explain(c, statement.getValue());
                Matcher access = TABLE_ACCESS.matcher(plan);
                int accesses = 0;
                while (access.find()) {
                    accesses++;
                    assertTrue(access.group().startsWith("/* PUBLIC.KEYS_EXPIRY_IDX:") && access.group().contains("STATUS "),
                            statement.getKey() + " reads the key table other than by status on its index:\n" + plan);
                }
                assertTrue(accesses > 0, statement.getKey() + " reads the key table:\n" + plan);
            }
            // The purge reads only the expired keys of its status, however many live keys the index holds.
            s.execute("INSERT INTO keys (scope, idem_key, fingerprint, status, attempts, created_at, updated_at, expires_at) "
                    + "SELECT 's', 'e' || X, 'fp', CASEWHEN(MOD(X, 2) = 0, 'COMPLETED', 'RETRYABLE'), 1, CURRENT_TIMESTAMP, "
                    + "CURRENT_TIMESTAMP, DATEADD(SECOND, -X, CURRENT_TIMESTAMP) FROM SYSTEM_RANGE(1, 40)");
            for (String purge : sql.purge) {
                String plan;
                try (ResultSet rs = s.executeQuery("EXPLAIN ANALYZE " + purge)) {
                    assertTrue(rs.next());
                    plan = rs.getString(1);
                }
                Matcher scanned = SCAN_COUNT.matcher(plan);
                assertTrue(scanned.find(), plan);
                do {
                    assertTrue(Integer.parseInt(scanned.group(1)) <= 100, "the purge reads live keys too:\n" + plan);
                } while (scanned.find());
            }
            try (ResultSet rs = s.executeQuery("SELECT COUNT(*) FROM keys WHERE idem_key LIKE 'e%'")) {
                assertTrue(rs.next());
                assertEquals(0, rs.getInt(1), "every expired key purged");
            }
        }
    }

    private static String explain(Connection c, String statement) throws SQLException {
        try (PreparedStatement ps = c.prepareStatement("EXPLAIN " + statement)) {
            for (int i = 1; i <= ps.getParameterMetaData().getParameterCount(); i++) ps.setInt(i, 100);
            try (ResultSet rs = ps.executeQuery()) {
                StringBuilder plan = new StringBuilder();
                while (rs.next()) plan.append(rs.getString(1)).append('\n');
                return plan.toString();
            }
        }
    }

    private Set<String> secondaryIndexes(String schema, String table) throws SQLException {
        Set<String> names = new TreeSet<>();
        try (Connection c = DriverManager.getConnection(url());
             PreparedStatement ps = c.prepareStatement("SELECT INDEX_NAME FROM INFORMATION_SCHEMA.INDEXES "
                     + "WHERE TABLE_SCHEMA = ? AND TABLE_NAME = ? AND INDEX_TYPE_NAME <> 'PRIMARY KEY'")) {
            ps.setString(1, schema);
            ps.setString(2, table);
            try (ResultSet rs = ps.executeQuery()) {
                while (rs.next()) names.add(rs.getString(1));
            }
        }
        return names;
    }
}
