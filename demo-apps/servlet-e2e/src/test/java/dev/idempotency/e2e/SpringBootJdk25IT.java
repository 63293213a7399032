package dev.idempotency.e2e;

import dev.idempotency.e2e.support.E2eEnvironment;
import dev.idempotency.e2e.scenarios.OrdersScenarios;
import dev.idempotency.e2e.servers.OrdersServers;
import dev.idempotency.e2e.servers.ServerProcess;

/** Spring Boot 3 executable jar on the Temurin 25 JDK. */
public class SpringBootJdk25IT extends OrdersScenarios {
    @Override
    protected boolean restartProvenByAnotherRow() {
        return true; // SpringBootIT
    }

    @Override
    protected ServerProcess server() throws Exception {
        return OrdersServers.springBoot().javaHome(E2eEnvironment.jdk25());
    }
}
