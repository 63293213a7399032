package dev.idempotency.e2e;

import dev.idempotency.e2e.support.E2eEnvironment;
import dev.idempotency.e2e.scenarios.OrdersScenarios;
import dev.idempotency.e2e.servers.OrdersServers;
import dev.idempotency.e2e.servers.ServerProcess;

/** Spring MVC 5 (javax) WAR on Tomcat 9, on the Temurin 25 JDK. */
public class SpringMvcTomcat9Jdk25IT extends OrdersScenarios {
    @Override
    protected ServerProcess server() throws Exception {
        return OrdersServers.onTomcat(E2eEnvironment.tomcat9(), "orders-spring-mvc.war").javaHome(E2eEnvironment.jdk25());
    }
}
