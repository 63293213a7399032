package dev.idempotency.e2e;

/** The legacy shop relocated to jakarta on Tomcat 10.1, the embedded H2 default store. */
class LegacyTomcat10IT extends LegacyScenarios {
    @Override
    protected ServerProcess server() throws Exception {
        return TomcatServer.legacyTomcat10();
    }
}
