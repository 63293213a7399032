package dev.idempotency.e2e;

/** Open Liberty with servlet-6.0 (Jakarta EE 10, jakarta), Equinox OSGi, the servlet suite's payments WAR, embedded H2. */
class OpenLibertyJakartaIT extends OpenLibertyScenarios {
    @Override
    protected ServerProcess server() throws Exception {
        return OpenLibertyServer.jakarta();
    }
}
