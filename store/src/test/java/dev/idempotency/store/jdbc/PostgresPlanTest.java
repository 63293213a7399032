package dev.idempotency.store.jdbc;

import dev.idempotency.store.StoreSettings;
import dev.idempotency.store.testing.TestDatabase;
import dev.idempotency.store.jdbc.dialect.Dialect;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.Locale;
import java.util.UUID;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The plans PostgreSQL makes for a keyed request's statements while the key table is new and empty: a server starting
 * on a new table prepares its statements then, and the driver keeps those plans while the table grows. None may scan
 * the whole table.
 */
class PostgresPlanTest {
    private static TestDatabase db;
    private final String table = "plan_" + UUID.randomUUID().toString().replace("-", "").substring(0, 12);

    @BeforeAll
    static void database() {
        db = TestDatabase.postgres();
    }

    @AfterEach
    void dropTable() throws SQLException {
        try (Connection c = connect(); Statement s = c.createStatement()) {
            for (String suffix : new String[] {"", "_secret", "_effects", "_schema"}) s.execute("DROP TABLE IF EXISTS " + table + suffix + " CASCADE");
        }
    }

    @Test
    void aBatchOfReservationsLooksUpTheKeysItCouldNotInsertByPrimaryKeyOnAnEmptyTable() throws SQLException {
        try (JdbcIdempotencyStore store = JdbcIdempotencyStore.open(
                StoreSettings.builder().url(db.url).user(db.user).password(db.password).table(table).build())) {
            store.checkSchema();
        }
        Sql sql = new Sql(Dialect.forUrl(db.url), table, 100, Duration.ofDays(30).toMillis(), 30_000, 86_400_000, false);
        for (int size : new int[] {1, 2, 8, 64}) {
            String plan = explain(withLiterals(sql.reserveMany(size)));
            assertFalse(plan.contains("Seq Scan on " + table), "batch of " + size + " scans the key table:\n" + plan);
            assertTrue(plan.contains("Index Scan using " + table + "_pkey"), "batch of " + size + " looks refused keys up by key:\n" + plan);
        }
        for (String single : new String[] {sql.selectState, sql.complete, sql.release}) {
            String plan = explain(withLiterals(single));
            assertFalse(plan.contains("Seq Scan on " + table), single + "\n" + plan);
        }
    }

    /** Every parameter as a quoted literal, so that EXPLAIN plans the statement as it stands. */
    private static String withLiterals(String statement) {
        StringBuilder out = new StringBuilder();
        int n = 0;
        for (char ch : statement.toCharArray()) {
            if (ch == '?') out.append("'p").append(n++).append('\'');
            else out.append(ch);
        }
        return out.toString()
                // numeric parameters of the single-row statements (lease, ttl, response status)
                .replaceAll("CAST\\('p\\d+' AS BIGINT\\)", "1000")
                .replaceAll("response_status = 'p\\d+'", "response_status = 201")
                .replaceAll("response_body = 'p\\d+'", "response_body = '\\\\x00'::bytea");
    }

    private String explain(String statement) throws SQLException {
        StringBuilder plan = new StringBuilder();
        try (Connection c = connect(); Statement s = c.createStatement()) {
            c.setAutoCommit(false);
            try (ResultSet rs = s.executeQuery("EXPLAIN " + statement)) {
                while (rs.next()) plan.append(rs.getString(1)).append('\n');
            } finally {
                c.rollback();
            }
        }
        return plan.toString().replace(table.toLowerCase(Locale.ROOT), table);
    }

    private static Connection connect() throws SQLException {
        return db.user == null ? DriverManager.getConnection(db.url) : DriverManager.getConnection(db.url, db.user, db.password);
    }
}
