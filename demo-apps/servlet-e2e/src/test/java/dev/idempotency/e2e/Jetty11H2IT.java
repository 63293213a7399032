package dev.idempotency.e2e;

/** Eclipse Jetty 11 (Servlet 5, jakarta), the embedded H2 default store. */
class Jetty11H2IT extends PaymentsScenarios {
    @Override
    protected ServerProcess server() throws Exception {
        return JettyServer.jetty11();
    }
}
