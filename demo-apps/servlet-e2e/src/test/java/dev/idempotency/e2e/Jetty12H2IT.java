package dev.idempotency.e2e;

import dev.idempotency.e2e.servers.JettyServer;
import dev.idempotency.e2e.scenarios.PaymentsScenarios;
import dev.idempotency.e2e.servers.ServerProcess;

/** Jetty 12 (ee10, jakarta), the embedded H2 default store. */
public class Jetty12H2IT extends PaymentsScenarios {
    @Override
    protected ServerProcess server() throws Exception {
        return JettyServer.jetty12ee10();
    }
}
