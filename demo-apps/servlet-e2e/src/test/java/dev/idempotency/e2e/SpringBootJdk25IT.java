package dev.idempotency.e2e;

/** Spring Boot 3 executable jar on the Temurin 25 JDK. */
class SpringBootJdk25IT extends OrdersScenarios {
    @Override
    protected ServerProcess server() throws Exception {
        return OrdersServers.springBoot().javaHome(E2eEnvironment.jdk25());
    }
}
