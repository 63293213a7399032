package dev.idempotency.e2e;

/** WildFly 39 (Jakarta EE 10), the WAR's JAX-RS resources on the server's own RESTEasy. */
class WildFly39IT extends JaxrsOrdersScenarios {
    @Override
    protected ServerProcess server() throws Exception {
        return OrdersServers.onWildFly(E2eEnvironment.wildfly39(), "orders-ee10.war");
    }
}
