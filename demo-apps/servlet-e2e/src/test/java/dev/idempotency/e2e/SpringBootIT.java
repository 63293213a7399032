package dev.idempotency.e2e;

/** Spring Boot 3 executable jar (embedded Tomcat, jakarta). */
class SpringBootIT extends OrdersScenarios {
    @Override
    protected ServerProcess server() throws Exception {
        return OrdersServers.springBoot();
    }
}
