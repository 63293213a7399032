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

    /**
     * A node starting while another holds the schema lock (creating or upgrading the table) finds the store busy, not
     * misconfigured: unavailable, which the agent keeps trying, and the table is made once the lock is free. It used to
     * be told to create the table by hand and use schema mode validate.
     */
    @org.junit.jupiter.api.Test
    void aSchemaLockHeldByAnotherNodeMakesTheStoreBusyNotMisconfigured() throws Exception {
        String table = "idem_schema_lock_" + java.util.UUID.randomUUID().toString().substring(0, 8);
        String lockKey = "hashtext('idempotency-schema:" + table + "')";
        try (java.sql.Connection otherNode = java.sql.DriverManager.getConnection(db.url, db.user, db.password);
             java.sql.Statement s = otherNode.createStatement()) {
            s.execute("SELECT pg_advisory_lock(" + lockKey + ")");
            try (JdbcIdempotencyStore store = JdbcIdempotencyStore.open(StoreSettings.builder().url(db.url).user(db.user)
                    .password(db.password).table(table).queryTimeout(java.time.Duration.ofSeconds(1)).build())) {
                StoreUnavailableException busy = org.junit.jupiter.api.Assertions.assertThrows(StoreUnavailableException.class, store::checkSchema);
                org.junit.jupiter.api.Assertions.assertTrue(busy.getMessage().contains("being changed by another node"), busy.getMessage());
                s.execute("SELECT pg_advisory_unlock(" + lockKey + ")");
                store.checkSchema();
                org.junit.jupiter.api.Assertions.assertEquals(Reservation.Outcome.ACQUIRED, store.reserve("t", "k", "fp").outcome());
            } finally {
                s.execute("DROP TABLE IF EXISTS " + table + ", " + table + "_schema, " + table + "_secret, " + table + "_effects");
            }
        }
    }

    @Override protected String databaseNowPlusSeconds(long seconds) { return "(CURRENT_TIMESTAMP + (" + seconds + ") * INTERVAL '1 second')"; }
}
