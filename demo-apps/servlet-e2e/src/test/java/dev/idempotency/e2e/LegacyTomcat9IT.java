package dev.idempotency.e2e;

/** The legacy shop on Tomcat 9 (javax), the embedded H2 default store. */
class LegacyTomcat9IT extends LegacyScenarios {
    @Override
    protected ServerProcess server() throws Exception {
        return TomcatServer.legacyTomcat9();
    }
}
