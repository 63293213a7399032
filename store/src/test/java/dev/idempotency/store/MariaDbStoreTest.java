package dev.idempotency.store;

import dev.idempotency.store.testing.TestDatabase;
import dev.idempotency.store.jdbc.SchemaManager;
import dev.idempotency.store.jdbc.dialect.Dialect;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

class MariaDbStoreTest extends TransactionRecoveryContract {
    private static TestDatabase db;

    @BeforeAll
    static void database() {
        db = TestDatabase.mariadb();
    }

    @Override protected String url() { return db.url; }
    @Override protected String user() { return db.user; }
    @Override protected String password() { return db.password; }
    // MariaDB waits for the row lock of a primary-key lookup while it plans the statement ("Statistics"), and
    // information_schema.innodb_trx does not always show that wait: the running locking read of the key does.
    @Override protected String lockWaitsQuery() {
        // Execute: the store's statements run prepared on the server. The text follows the driver's SET STATEMENT
        // max_statement_time prefix.
        return "SELECT COUNT(*) FROM information_schema.processlist WHERE db = DATABASE() AND command IN ('Query', 'Execute')"
                + " AND info LIKE '%SELECT owner_token%FOR UPDATE'";
    }
    @Override protected String databaseNow() { return "UTC_TIMESTAMP(3)"; }
    @Override protected String databaseNowPlusSeconds(long seconds) { return "TIMESTAMPADD(SECOND, " + seconds + ", UTC_TIMESTAMP(3))"; }

    private String columnType(String column) throws SQLException {
        try (Connection c = connect(); PreparedStatement ps = c.prepareStatement("SELECT COLUMN_TYPE FROM information_schema.COLUMNS "
                + "WHERE TABLE_SCHEMA = DATABASE() AND TABLE_NAME = ? AND COLUMN_NAME = ?")) {
            ps.setString(1, table());
            ps.setString(2, column);
            try (ResultSet rs = ps.executeQuery()) {
                assertTrue(rs.next(), column);
                return rs.getString(1);
            }
        }
    }

    @Test
    void aUrlThatTurnsTheBulkProtocolBackOnStillGivesEveryCallerItsOwnOutcome() throws Exception {
        // The driver then reports batched statements as a whole; the store reads back whose write went in.
        String bulk = url() + (url().contains("?") ? "&" : "?") + "useBulkStmts=true&useBulkStmtsForInserts=true";
        dev.idempotency.store.jdbc.JdbcIdempotencyStore store = open(settings().url(bulk).poolSize(2)); // one lane each: batches form
        mixedRounds(store, 60, () -> store.reservationFigures().largestBatch() > 1 && store.completionFigures().largestBatch() > 1);
        assertTrue(store.completionFigures().largestBatch() > 1, store.completionFigures().toString());
    }

    @Test
    void validateNamesEachPadSpaceColumnOfAVersionOneTableAndTheUpgradeScript() throws SQLException {
        store().checkSchema();
        // A version 1 table, as the previous release created it (its columns), still recording version 1.
        execute("ALTER TABLE " + table() + " MODIFY scope VARCHAR(255) CHARACTER SET utf8mb4 COLLATE utf8mb4_bin NOT NULL, "
                + "MODIFY idem_key VARCHAR(255) CHARACTER SET ascii COLLATE ascii_bin NOT NULL");
        execute("DELETE FROM " + table() + "_schema WHERE version = 2");
        execute("INSERT INTO " + table() + "_schema (version) VALUES (1)");
        StoreConfigurationException e = assertThrows(StoreConfigurationException.class,
                () -> open(settings().schemaMode(SchemaMode.VALIDATE)).checkSchema());
        String m = e.getMessage();
        assertTrue(m.contains("column scope is varchar(255) with collation utf8mb4_bin"), m);
        assertTrue(m.contains("column idem_key is varchar(255) with collation ascii_bin"), m);
        assertTrue(m.contains("expected VARBINARY(1020)"), m);
        assertTrue(m.contains("dev/idempotency/store/schema/mysql-upgrade-1-to-2.sql, then dev/idempotency/store/schema/mysql.sql"), m);
    }

    @Test
    void validateRefusesAVersionTwoTableWhoseKeyColumnComparesCharacters() throws SQLException {
        store().checkSchema();
        execute("ALTER TABLE " + table() + " MODIFY idem_key VARCHAR(255) CHARACTER SET ascii COLLATE ascii_bin NOT NULL");
        StoreConfigurationException e = assertThrows(StoreConfigurationException.class,
                () -> open(settings().schemaMode(SchemaMode.VALIDATE)).checkSchema());
        assertTrue(e.getMessage().contains("column idem_key is varchar(255) with collation ascii_bin")
                && e.getMessage().contains("mysql-upgrade-1-to-2.sql"), e.getMessage());
    }

    @Test
    void createUpgradesTheColumnsOfAVersionOneTableToBinary() throws SQLException {
        try (Connection c = connect(); Statement s = c.createStatement()) {
            for (String statement : SchemaManager.ddlStatements(Dialect.forUrl(url()), table())) s.execute(statement);
            s.execute("ALTER TABLE " + table() + " MODIFY scope VARCHAR(255) CHARACTER SET utf8mb4 COLLATE utf8mb4_bin NOT NULL, "
                    + "MODIFY idem_key VARCHAR(255) CHARACTER SET ascii COLLATE ascii_bin NOT NULL, "
                    + "MODIFY owner_token VARCHAR(36) CHARACTER SET ascii COLLATE ascii_bin NULL");
            s.execute("DELETE FROM " + table() + "_schema");
            s.execute("INSERT INTO " + table() + "_schema (version) VALUES (1)");
        }
        assertEquals("varchar(255)", columnType("idem_key"));
        store().checkSchema();
        assertEquals("varbinary(1020)", columnType("scope"));
        assertEquals("varbinary(1020)", columnType("idem_key"));
        assertEquals("varbinary(36)", columnType("owner_token"));
        assertEquals("varbinary(16)", columnType("status"));
        assertEquals("varbinary(512)", columnType("fingerprint"));
    }
}
