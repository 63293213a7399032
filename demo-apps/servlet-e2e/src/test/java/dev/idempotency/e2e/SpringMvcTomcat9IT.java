package dev.idempotency.e2e;

/** Spring MVC 5 (javax) WAR, DispatcherServlet in web.xml, on Tomcat 9. */
class SpringMvcTomcat9IT extends OrdersScenarios implements SpringTransparencyChecks {
    @Override
    protected ServerProcess server() throws Exception {
        return OrdersServers.onTomcat(E2eEnvironment.tomcat9(), "orders-spring-mvc.war");
    }

    @org.junit.jupiter.api.Test
    void aViewsAnswerIsTheUnkeyedOneAndItsRetryReplaysIt() throws Exception {
        assertTransparent("view");
    }

    @Override
    public Client client() {
        return client;
    }
}
