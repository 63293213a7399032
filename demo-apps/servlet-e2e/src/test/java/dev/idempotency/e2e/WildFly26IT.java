package dev.idempotency.e2e;

/** WildFly 26.1 (Java EE 8, javax), the WAR's JAX-RS resources on the server's own RESTEasy. */
class WildFly26IT extends JaxrsOrdersScenarios {
    @Override
    protected ServerProcess server() throws Exception {
        return OrdersServers.onWildFly(E2eEnvironment.wildfly26(), "orders-ee8.war");
    }
}
