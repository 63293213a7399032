package dev.idempotency.e2e;

import dev.idempotency.e2e.scenarios.OpenLibertyScenarios;
import dev.idempotency.e2e.servers.OpenLibertyServer;
import dev.idempotency.e2e.servers.ServerProcess;

/** Open Liberty with servlet-4.0 (Java EE 8, javax), Equinox OSGi, the servlet suite's payments WAR, embedded H2. */
public class OpenLibertyJavaxIT extends OpenLibertyScenarios {
    @Override
    protected ServerProcess server() throws Exception {
        return OpenLibertyServer.javax();
    }
}
