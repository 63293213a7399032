package dev.idempotency.e2e;

import dev.idempotency.e2e.scenarios.LegacyScenarios;
import dev.idempotency.e2e.servers.ServerProcess;
import dev.idempotency.e2e.servers.TomcatServer;
import dev.idempotency.store.testing.TestDatabase;

/**
 * The legacy shop on Tomcat 9 with the MariaDB store ({@code IDEMPOTENCY_TEST_MARIADB_URL}, else Testcontainers, else
 * skipped, or failed under {@code -Didempotency.test.require-databases=true}). MariaDB's default collations compare
 * strings PAD SPACE, so this is where {@code "abc "} and {@code "abc"} must still be two keys
 * ({@link #aKeyWithATrailingSpaceIsAnotherKey()}).
 */
public class LegacyTomcat9MariaDbIT extends LegacyScenarios {
    @Override
    protected ServerProcess server() throws Exception {
        TestDatabase db = TestDatabase.mariadb();
        ServerProcess tomcat = TomcatServer.legacyTomcat9()
                .set("idempotency.store.url", db.url)
                .set("idempotency.store.table", "e2e_keys_" + Long.toHexString(System.nanoTime()));
        if (db.user != null) tomcat.set("idempotency.store.user", db.user).set("idempotency.store.password", db.password);
        return tomcat;
    }
}
