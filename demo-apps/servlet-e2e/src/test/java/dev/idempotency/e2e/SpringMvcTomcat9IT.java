package dev.idempotency.e2e;

import dev.idempotency.e2e.support.Client;
import dev.idempotency.e2e.support.E2eEnvironment;
import dev.idempotency.e2e.scenarios.OrdersScenarios;
import dev.idempotency.e2e.servers.OrdersServers;
import dev.idempotency.e2e.servers.ServerProcess;
import dev.idempotency.e2e.scenarios.SpringTransparencyChecks;

/** Spring MVC 5 (javax) WAR, DispatcherServlet in web.xml, on Tomcat 9. */
public class SpringMvcTomcat9IT extends OrdersScenarios implements SpringTransparencyChecks {
    @Override
    protected ServerProcess server() throws Exception {
        return OrdersServers.onTomcat(E2eEnvironment.tomcat9(), "orders-spring-mvc.war");
    }

    @org.junit.jupiter.api.Test
    public void aViewsAnswerIsTheUnkeyedOneAndItsRetryReplaysIt() throws Exception {
        assertTransparent("view");
    }

    @Override
    public Client client() {
        return client;
    }
}
