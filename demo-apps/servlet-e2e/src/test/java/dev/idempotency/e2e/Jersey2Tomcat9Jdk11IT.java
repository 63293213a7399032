package dev.idempotency.e2e;

/** Jersey 2 (javax) WAR on Tomcat 9, on OpenJDK 11. */
class Jersey2Tomcat9Jdk11IT extends JaxrsOrdersScenarios {
    @Override
    protected ServerProcess server() throws Exception {
        return OrdersServers.onTomcat(E2eEnvironment.tomcat9(), "orders-jersey2.war").javaHome(E2eEnvironment.jdk11());
    }

    @org.junit.jupiter.api.Test
    void theServerRunsOnJava11() throws Exception {
        TomcatServer.assertRunsOnJava(server, 11);
    }
}
