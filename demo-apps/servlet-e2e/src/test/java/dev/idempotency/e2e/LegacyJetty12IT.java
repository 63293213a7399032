package dev.idempotency.e2e;

/** The legacy shop relocated to jakarta on Jetty 12 (ee10), the embedded H2 default store. */
class LegacyJetty12IT extends LegacyScenarios {
    @Override
    protected ServerProcess server() throws Exception {
        return JettyServer.legacyJetty12ee10();
    }
}
