package dev.idempotency.e2e;

import dev.idempotency.e2e.support.E2eEnvironment;
import dev.idempotency.e2e.servers.JarServer;
import dev.idempotency.e2e.servers.ServerProcess;
import dev.idempotency.e2e.scenarios.StandaloneJaxrsScenarios;
import java.util.Arrays;

/** Jersey 3 on the JDK HttpServer, configured with a ResourceConfig listing the resources instead of an Application. */
public class JerseyStandaloneResourceConfigIT extends StandaloneJaxrsScenarios {
    @Override
    protected boolean restartProvenByAnotherRow() {
        return true; // JerseyStandaloneIT
    }

    @Override
    protected ServerProcess server() throws Exception {
        return new JarServer("jersey-resource-config", E2eEnvironment.war("orders-jersey3-standalone.jar"),
                Arrays.asList("{port}", "resource-config")).application("", "/api/counters");
    }
}
