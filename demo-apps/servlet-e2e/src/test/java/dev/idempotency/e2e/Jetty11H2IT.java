package dev.idempotency.e2e;

import dev.idempotency.e2e.servers.JettyServer;
import dev.idempotency.e2e.scenarios.PaymentsScenarios;
import dev.idempotency.e2e.servers.ServerProcess;

/** Eclipse Jetty 11 (Servlet 5, jakarta), the embedded H2 default store. */
public class Jetty11H2IT extends PaymentsScenarios {
    @Override
    protected ServerProcess server() throws Exception {
        return JettyServer.jetty11();
    }
}
