package dev.idempotency.store;

import dev.idempotency.store.testing.TestDatabase;
import org.junit.jupiter.api.BeforeAll;

class MariaDbStoreTest extends IdempotencyStoreContract {
    private static TestDatabase db;

    @BeforeAll
    static void database() {
        db = TestDatabase.mariadb();
    }

    @Override protected String url() { return db.url; }
    @Override protected String user() { return db.user; }
    @Override protected String password() { return db.password; }
    @Override protected String databaseNow() { return "UTC_TIMESTAMP(3)"; }
}
