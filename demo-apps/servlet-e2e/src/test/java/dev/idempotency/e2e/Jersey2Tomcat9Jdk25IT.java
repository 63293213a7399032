package dev.idempotency.e2e;

/** Jersey 2 (javax) WAR on Tomcat 9, on the Temurin 25 JDK. */
class Jersey2Tomcat9Jdk25IT extends JaxrsOrdersScenarios {
    @Override
    protected ServerProcess server() throws Exception {
        return OrdersServers.onTomcat(E2eEnvironment.tomcat9(), "orders-jersey2.war").javaHome(E2eEnvironment.jdk25());
    }
}
