package dev.idempotency.e2e;

/** Jetty 12 (ee10, jakarta), the embedded H2 default store. */
class Jetty12H2IT extends PaymentsScenarios {
    @Override
    protected ServerProcess server() throws Exception {
        return JettyServer.jetty12ee10();
    }
}
