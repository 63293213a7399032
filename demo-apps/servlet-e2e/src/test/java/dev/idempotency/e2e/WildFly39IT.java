package dev.idempotency.e2e;

import dev.idempotency.e2e.support.E2eEnvironment;
import dev.idempotency.e2e.scenarios.JaxrsOrdersScenarios;
import dev.idempotency.e2e.servers.OrdersServers;
import dev.idempotency.e2e.servers.ServerProcess;

/** WildFly 39 (Jakarta EE 10), the WAR's JAX-RS resources on the server's own RESTEasy. */
public class WildFly39IT extends JaxrsOrdersScenarios {
    @Override
    protected ServerProcess server() throws Exception {
        return OrdersServers.onWildFly(E2eEnvironment.wildfly39(), "orders-ee10.war");
    }
}
