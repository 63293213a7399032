package dev.idempotency.e2e;

/** Open Liberty with servlet-4.0 (Java EE 8, javax), Equinox OSGi, the servlet suite's payments WAR, embedded H2. */
class OpenLibertyJavaxIT extends OpenLibertyScenarios {
    @Override
    protected ServerProcess server() throws Exception {
        return OpenLibertyServer.javax();
    }
}
