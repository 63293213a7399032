package dev.idempotency.e2e;

import dev.idempotency.e2e.support.E2eEnvironment;
import dev.idempotency.e2e.scenarios.JaxrsOrdersScenarios;
import dev.idempotency.e2e.servers.OrdersServers;
import dev.idempotency.e2e.servers.ServerProcess;

/** WildFly 26.1 (Java EE 8, javax), the WAR's JAX-RS resources on the server's own RESTEasy. */
public class WildFly26IT extends JaxrsOrdersScenarios {
    @Override
    protected ServerProcess server() throws Exception {
        return OrdersServers.onWildFly(E2eEnvironment.wildfly26(), "orders-ee8.war");
    }
}
