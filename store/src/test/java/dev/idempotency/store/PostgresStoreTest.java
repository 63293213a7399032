package dev.idempotency.store;

import dev.idempotency.store.jdbc.JdbcIdempotencyStore;
import dev.idempotency.store.testing.TestDatabase;
import org.junit.jupiter.api.BeforeAll;

class PostgresStoreTest extends TransactionRecoveryContract {
    private static TestDatabase db;

    @BeforeAll
    static void database() {
        db = TestDatabase.postgres();
    }

    @Override protected String url() { return db.url; }
    @Override protected String user() { return db.user; }
    @Override protected String password() { return db.password; }
    @Override protected String lockWaitsQuery() { return "SELECT COUNT(*) FROM pg_locks WHERE NOT granted"; }
    /**
     * A server whose sessions default to serializable: the decision still reads marks committed while it waited for the
     * key's row (it runs read committed itself), where a snapshot taken before the wait would miss them.
     */
    @org.junit.jupiter.api.Test
    void theDecisionSeesAMarkCommittedWhileItWaitedWhateverTheDefaultIsolation() throws Exception {
        String serializable = db.url + (db.url.contains("?") ? "&" : "?") + "options=-c%20default_transaction_isolation%3Dserializable";
        JdbcIdempotencyStore store = transactional(serializable);
        try (java.sql.Connection c = store.settings().user() == null ? java.sql.DriverManager.getConnection(serializable)
                : java.sql.DriverManager.getConnection(serializable, db.user, db.password);
             java.sql.Statement s = c.createStatement(); java.sql.ResultSet rs = s.executeQuery("SHOW default_transaction_isolation")) {
            rs.next();
            org.junit.jupiter.api.Assertions.assertEquals("serializable", rs.getString(1), "the store's sessions default to serializable");
        }
        org.junit.jupiter.api.Assertions.assertEquals(Reservation.Outcome.OUTCOME_UNKNOWN, retryRacingTheOwner(store, true));
    }

    @Override protected String databaseNowPlusSeconds(long seconds) { return "(CURRENT_TIMESTAMP + (" + seconds + ") * INTERVAL '1 second')"; }
}
