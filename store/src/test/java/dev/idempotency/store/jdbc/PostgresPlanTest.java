package dev.idempotency.store.jdbc;

import dev.idempotency.store.StoreSettings;
import dev.idempotency.store.jdbc.dialect.Dialect;
import dev.idempotency.store.testing.TestDatabase;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import java.sql.Array;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Properties;
import java.util.UUID;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The plans PostgreSQL keeps for a keyed request's statements. The driver prepares a statement after a few uses and
 * the server then keeps one generic plan for it; made while the key table was small (new, or analyzed with a few rows),
 * that plan must still find rows by key once the table has grown. Each statement is prepared here as the store's own
 * connections see it (their driver settings), with a generic plan forced, and explained.
 */
class PostgresPlanTest {
    private static TestDatabase db;
    private final String table = "plan_" + UUID.randomUUID().toString().replace("-", "").substring(0, 12);
    private StoreSettings settings;

    @BeforeAll
    static void database() {
        db = TestDatabase.postgres();
    }

    @BeforeEach
    void createTable() {
        settings = StoreSettings.builder().url(db.url).user(db.user).password(db.password).table(table).build();
        try (JdbcIdempotencyStore store = JdbcIdempotencyStore.open(settings)) {
            store.checkSchema();
        }
    }

    @AfterEach
    void dropTable() throws SQLException {
        db.dropKeyTable(table);
    }

    @Test
    void onANewEmptyTableEveryKeyedStatementFindsItsRowByKey() throws SQLException {
        assertEveryKeyedStatementFindsItsRowByKey();
    }

    @Test
    void onATableAnalyzedWhileSmallEveryKeyedStatementFindsItsRowByKey() throws SQLException {
        try (Connection c = db.connect(new Properties()); Statement s = c.createStatement()) {
            s.execute("INSERT INTO " + table + " (scope, idem_key, fingerprint, status, attempts, created_at, updated_at, expires_at) "
                    + "SELECT 's', 'k' || g, 'fp', 'COMPLETED', 1, now(), now(), now() + INTERVAL '1 day' FROM generate_series(1, 10) g");
            s.execute("ANALYZE " + table);
        }
        assertEveryKeyedStatementFindsItsRowByKey();
    }

    @Test
    void anOperatorCountOverTheWholeTableStillWorks() {
        try (JdbcIdempotencyStore store = JdbcIdempotencyStore.open(settings)) {
            store.reserve("s", "counted", "fp");
            assertTrue(store.countByStatus().values().stream().mapToLong(Long::longValue).sum() == 1L);
            assertTrue(store.list(dev.idempotency.store.KeyQuery.all(10)).size() == 1);
        }
    }

    private void assertEveryKeyedStatementFindsItsRowByKey() throws SQLException {
        Sql sql = new Sql(Dialect.forUrl(db.url), table, 100, Duration.ofDays(30).toMillis(), 30_000, 86_400_000, false);
        Map<String, String> statements = new LinkedHashMap<>();
        for (int size : new int[] {1, 2, 8, 64}) statements.put("reservation batch of " + size, sql.reserveMany(size));
        statements.put("state", sql.selectState);
        statements.put("completion", sql.complete);
        statements.put("release", sql.release);
        statements.put("retry of a retryable key", sql.takeOverRetryable);
        statements.put("unknown after an expired lease", sql.markUnknown);
        // Housekeeping: completed keys keep their lease, so the sweep must read a range of the lease index, and the
        // purge (and its backstop for abandoned keys) a range of the expiry index, never the table.
        statements.put("sweep of expired leases", sql.sweepToUnknown);
        statements.put("sweep of expired leases, transaction", sql.expiredLeases);
        statements.put("backstop of the sweep", sql.sweepExpiredKeysToUnknown);
        for (String purge : sql.purge) statements.put("purge " + purge.hashCode(), purge);
        statements.put("purge of unknown keys", sql.purgeUnknown);
        try (Connection c = db.connect(Dialect.forUrl(db.url).driverProperties(settings)); Statement s = c.createStatement()) {
            s.execute("SET plan_cache_mode = force_generic_plan");
            int n = 0;
            for (Map.Entry<String, String> statement : statements.entrySet()) {
                String name = "plan_test_" + n++;
                boolean batch = statement.getKey().startsWith("reservation batch");
                s.execute("PREPARE " + name + typesOf(statement.getValue(), batch) + " AS " + numbered(statement.getValue()));
                String plan = explain(c, name);
                assertFalse(plan.contains("Seq Scan on " + table), statement.getKey() + " scans the key table:\n" + plan);
                assertTrue(plan.contains("Index Scan using " + table) || plan.contains("Bitmap Index Scan on " + table),
                        statement.getKey() + " finds its rows by an index:\n" + plan);
            }
        }
    }

    /** The batch's parameters are all text columns; the driver sends them as varchar. Others the server infers. */
    private static String typesOf(String statement, boolean batch) {
        if (!batch) return "";
        int count = statement.length() - statement.replace("?", "").length();
        return "(" + String.join(", ", Collections.nCopies(count, "varchar")) + ")";
    }

    /** JDBC's {@code ?} as the server's {@code $1, $2, …}. */
    private static String numbered(String statement) {
        StringBuilder out = new StringBuilder();
        int n = 0;
        for (char ch : statement.toCharArray()) {
            if (ch == '?') out.append('$').append(++n);
            else out.append(ch);
        }
        return out.toString();
    }

    /** EXPLAIN EXECUTE with a value of each parameter's type. */
    private String explain(Connection c, String name) throws SQLException {
        List<String> values = new ArrayList<>();
        try (PreparedStatement ps = c.prepareStatement("SELECT parameter_types::text[] FROM pg_prepared_statements WHERE name = ?")) {
            ps.setString(1, name);
            try (ResultSet rs = ps.executeQuery()) {
                assertTrue(rs.next(), name + " is prepared");
                Array types = rs.getArray(1);
                for (Object type : (Object[]) types.getArray()) {
                    String t = String.valueOf(type);
                    values.add(t.equals("integer") || t.equals("bigint") ? "1" : t.equals("bytea") ? "'\\x00'" : "'p" + values.size() + "'");
                }
            }
        }
        StringBuilder plan = new StringBuilder();
        try (Statement s = c.createStatement();
             ResultSet rs = s.executeQuery("EXPLAIN EXECUTE " + name + (values.isEmpty() ? "" : "(" + String.join(", ", values) + ")"))) {
            while (rs.next()) plan.append(rs.getString(1)).append('\n');
        }
        return plan.toString().replace(table.toLowerCase(Locale.ROOT), table);
    }
}
