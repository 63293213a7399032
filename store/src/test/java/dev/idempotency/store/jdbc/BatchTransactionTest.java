package dev.idempotency.store.jdbc;

import dev.idempotency.store.StoreSettings;
import dev.idempotency.store.jdbc.dialect.Dialect;
import dev.idempotency.store.testing.TestDatabase;
import org.junit.jupiter.api.Test;

import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.Arrays;
import java.util.List;
import java.util.Properties;
import java.util.UUID;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

/**
 * A batch's transaction on MariaDB, begun and ended by statements (the driver's autocommit switch costs a round trip
 * each way): whether it commits or fails, it is over when the batch returns, so the pooled connection carries no open
 * transaction (and no uncommitted rows or their locks) to its next user.
 */
class BatchTransactionTest {
    private final String table = "batch_tx_" + UUID.randomUUID().toString().replace("-", "").substring(0, 12);

    @Test
    void aFailedBatchIsRolledBackAndLeavesNoTransactionOpen() throws SQLException {
        TestDatabase db = TestDatabase.mariadb();
        StoreSettings settings = StoreSettings.builder().url(db.url).user(db.user).password(db.password).table(table).build();
        try (JdbcIdempotencyStore store = JdbcIdempotencyStore.open(settings);
             Connection c = db.connect(Dialect.forUrl(db.url).driverProperties(settings));
             Connection other = db.connect(new Properties())) {
            store.checkSchema();
            // A plain insert: the store's own ignores a key already present, and nothing else here would fail it.
            String insert = "INSERT INTO " + table + " (scope, idem_key, fingerprint, status, attempts, created_at, updated_at, expires_at)"
                    + " VALUES (?, ?, 'fp', 'IN_FLIGHT', 1, UTC_TIMESTAMP(), UTC_TIMESTAMP(), UTC_TIMESTAMP())";
            store.inOneTransaction(c, insert, Arrays.<Object[]>asList(row("taken")), new int[1], false);

            int[] phase = new int[1];
            List<Object[]> rows = Arrays.<Object[]>asList(row("a-new"), row("taken"), row("z-new"));
            assertThrows(SQLException.class, () -> store.inOneTransaction(c, insert, rows, phase, false),
                    "a key already present fails the batch");
            assertEquals(0, inTransaction(c), "the failed batch's transaction is over");
            assertEquals(1, count(other), "nothing of the failed batch stays");

            assertArrayEquals(new int[] {1, 1}, store.inOneTransaction(c, insert, Arrays.<Object[]>asList(row("b-new"), row("c-new")), phase, false));
            assertEquals(0, inTransaction(c), "the committed batch's transaction is over");
            assertEquals(3, count(other), "the committed batch is visible to others");
        } finally {
            db.dropKeyTable(table);
        }
    }

    private static Object[] row(String key) {
        return new Object[] {"s", key};
    }

    private static int inTransaction(Connection c) throws SQLException {
        try (Statement s = c.createStatement(); ResultSet rs = s.executeQuery("SELECT @@in_transaction")) {
            rs.next();
            return rs.getInt(1);
        }
    }

    private int count(Connection c) throws SQLException {
        try (Statement s = c.createStatement(); ResultSet rs = s.executeQuery("SELECT COUNT(*) FROM " + table)) {
            rs.next();
            return rs.getInt(1);
        }
    }
}
