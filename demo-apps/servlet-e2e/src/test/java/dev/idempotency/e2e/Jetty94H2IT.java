package dev.idempotency.e2e;

/** Eclipse Jetty 9.4 (Servlet 3.1, javax), the embedded H2 default store. */
class Jetty94H2IT extends PaymentsScenarios {
    @Override
    protected ServerProcess server() throws Exception {
        return JettyServer.jetty94();
    }
}
