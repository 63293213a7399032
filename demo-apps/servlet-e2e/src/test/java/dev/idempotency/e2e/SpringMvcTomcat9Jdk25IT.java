package dev.idempotency.e2e;

/** Spring MVC 5 (javax) WAR on Tomcat 9, on the Temurin 25 JDK. */
class SpringMvcTomcat9Jdk25IT extends OrdersScenarios {
    @Override
    protected ServerProcess server() throws Exception {
        return OrdersServers.onTomcat(E2eEnvironment.tomcat9(), "orders-spring-mvc.war").javaHome(E2eEnvironment.jdk25());
    }
}
