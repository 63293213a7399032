package dev.idempotency.e2e;

import dev.idempotency.e2e.scenarios.PaymentsScenarios;
import dev.idempotency.e2e.servers.ServerProcess;
import dev.idempotency.e2e.servers.TomcatServer;

/** Tomcat 9 (javax), the embedded H2 default store: no store settings at all. */
public class Tomcat9H2IT extends PaymentsScenarios {
    @Override
    protected ServerProcess server() throws Exception {
        return TomcatServer.tomcat9();
    }
}
