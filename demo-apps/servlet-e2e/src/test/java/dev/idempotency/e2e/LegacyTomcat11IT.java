package dev.idempotency.e2e;

/** The legacy shop relocated to jakarta on Tomcat 11 (Servlet 6.1), the embedded H2 default store. */
class LegacyTomcat11IT extends LegacyScenarios {
    @Override
    protected ServerProcess server() throws Exception {
        return TomcatServer.legacyTomcat11();
    }
}
