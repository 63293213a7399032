package dev.idempotency.e2e;

import dev.idempotency.e2e.support.E2eEnvironment;
import dev.idempotency.e2e.scenarios.PaymentsScenarios;
import dev.idempotency.e2e.servers.ServerProcess;
import dev.idempotency.e2e.servers.TomcatServer;
import dev.idempotency.store.testing.TestDatabase;

/** Tomcat 9 (javax) on OpenJDK 11 with the PostgreSQL store. */
public class Tomcat9PostgresJdk11IT extends PaymentsScenarios {
    private final String table = "e2e_jdk11_" + Long.toHexString(System.nanoTime());

    @Override
    protected ServerProcess server() throws Exception {
        TestDatabase db = TestDatabase.postgres();
        ServerProcess tomcat = TomcatServer.tomcat9().javaHome(E2eEnvironment.jdk11())
                .set("idempotency.store.url", db.url)
                .set("idempotency.store.table", table);
        if (db.user != null) tomcat.set("idempotency.store.user", db.user).set("idempotency.store.password", db.password);
        return tomcat;
    }

    @org.junit.jupiter.api.Test
    public void theServerRunsOnJava11() throws Exception {
        TomcatServer.assertRunsOnJava(server, 11);
    }
}
