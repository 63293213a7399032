package dev.idempotency.e2e;

import dev.idempotency.e2e.scenarios.JaxrsOrdersScenarios;
import dev.idempotency.e2e.servers.ServerProcess;
import dev.idempotency.e2e.servers.TomEeServer;

/** Apache TomEE 9 web profile, the orders WAR's JAX-RS resources on the server's own CXF. */
public class TomEe9CxfIT extends JaxrsOrdersScenarios {
    @Override
    protected ServerProcess server() throws Exception {
        return TomEeServer.tomee9("orders-ee10.war").application("/shop", "/api/counters");
    }
}
