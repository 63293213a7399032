package dev.idempotency.e2e;

/** Tomcat 9 (javax), the embedded H2 default store: no store settings at all. */
class Tomcat9H2IT extends PaymentsScenarios {
    @Override
    protected ServerProcess server() throws Exception {
        return TomcatServer.tomcat9();
    }
}
