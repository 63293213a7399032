package dev.idempotency.e2e;

import dev.idempotency.e2e.support.E2eEnvironment;
import dev.idempotency.e2e.scenarios.JaxrsOrdersScenarios;
import dev.idempotency.e2e.servers.OrdersServers;
import dev.idempotency.e2e.servers.ServerProcess;
import dev.idempotency.e2e.servers.TomcatServer;

/** Jersey 2 (javax) WAR on Tomcat 9, on OpenJDK 11. */
public class Jersey2Tomcat9Jdk11IT extends JaxrsOrdersScenarios {
    @Override
    protected ServerProcess server() throws Exception {
        return OrdersServers.onTomcat(E2eEnvironment.tomcat9(), "orders-jersey2.war").javaHome(E2eEnvironment.jdk11());
    }

    @org.junit.jupiter.api.Test
    public void theServerRunsOnJava11() throws Exception {
        TomcatServer.assertRunsOnJava(server, 11);
    }
}
