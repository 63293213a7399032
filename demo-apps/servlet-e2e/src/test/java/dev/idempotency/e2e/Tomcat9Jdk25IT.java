package dev.idempotency.e2e;

import dev.idempotency.e2e.support.E2eEnvironment;
import dev.idempotency.e2e.scenarios.PaymentsScenarios;
import dev.idempotency.e2e.servers.ServerProcess;
import dev.idempotency.e2e.servers.TomcatServer;

/** Tomcat 9 (javax) on the Temurin 25 JDK, the embedded H2 default store. */
public class Tomcat9Jdk25IT extends PaymentsScenarios {
    @Override
    protected ServerProcess server() throws Exception {
        return TomcatServer.tomcat9().javaHome(E2eEnvironment.jdk25());
    }
}
