package dev.idempotency.store;

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
    @Override protected String databaseNowPlusSeconds(long seconds) { return "(CURRENT_TIMESTAMP + (" + seconds + ") * INTERVAL '1 second')"; }
}
