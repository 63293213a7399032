package dev.idempotency.e2e;

/** Tomcat 10.1 (jakarta), the embedded H2 default store. */
class Tomcat10H2IT extends PaymentsScenarios {
    @Override
    protected ServerProcess server() throws Exception {
        return TomcatServer.tomcat10();
    }
}
