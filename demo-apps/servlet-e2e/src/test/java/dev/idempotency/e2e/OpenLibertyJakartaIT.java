package dev.idempotency.e2e;

import dev.idempotency.e2e.scenarios.OpenLibertyScenarios;
import dev.idempotency.e2e.servers.OpenLibertyServer;
import dev.idempotency.e2e.servers.ServerProcess;

/** Open Liberty with servlet-6.0 (Jakarta EE 10, jakarta), Equinox OSGi, the servlet suite's payments WAR, embedded H2. */
public class OpenLibertyJakartaIT extends OpenLibertyScenarios {
    @Override
    protected ServerProcess server() throws Exception {
        return OpenLibertyServer.jakarta();
    }
}
