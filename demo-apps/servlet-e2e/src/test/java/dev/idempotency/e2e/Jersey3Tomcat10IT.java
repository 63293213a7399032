package dev.idempotency.e2e;

/** Jersey 3 (jakarta) WAR on Tomcat 10.1. */
class Jersey3Tomcat10IT extends JaxrsOrdersScenarios {
    @Override
    protected ServerProcess server() throws Exception {
        return OrdersServers.onTomcat(E2eEnvironment.tomcat10(), "orders-jersey3.war");
    }
}
