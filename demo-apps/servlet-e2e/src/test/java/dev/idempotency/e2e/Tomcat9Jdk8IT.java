package dev.idempotency.e2e;

import dev.idempotency.e2e.support.E2eEnvironment;
import dev.idempotency.e2e.scenarios.PaymentsScenarios;
import dev.idempotency.e2e.servers.ServerProcess;
import dev.idempotency.e2e.servers.TomcatServer;

/** Tomcat 9 (javax) on OpenJDK 8 (Debian sid's, beside sid's C library), the embedded H2 default store. */
public class Tomcat9Jdk8IT extends PaymentsScenarios {
    @Override
    protected ServerProcess server() throws Exception {
        return TomcatServer.tomcat9().javaHome(E2eEnvironment.jdk8());
    }

    @org.junit.jupiter.api.Test
    public void theServerRunsOnJava8() throws Exception {
        TomcatServer.assertRunsOnJava(server, 8);
    }
}
