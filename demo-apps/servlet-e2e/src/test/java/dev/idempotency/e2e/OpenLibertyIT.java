package dev.idempotency.e2e;

import dev.idempotency.e2e.scenarios.OpenLibertyScenarios;
import dev.idempotency.e2e.servers.OpenLibertyServer;
import dev.idempotency.e2e.servers.ServerProcess;
import org.junit.jupiter.api.Nested;

/** Open Liberty, javax and jakarta features. One nested class per row. */
public class OpenLibertyIT {
    /** Open Liberty with servlet-4.0 (Java EE 8, javax), Equinox OSGi, the servlet suite's payments WAR, embedded H2. */
    @Nested
    class OpenLibertyJavax extends OpenLibertyScenarios {
        @Override
        protected boolean restartProvenByAnotherRow() {
            return true; // OpenLibertyJakarta
        }

        @Override
        protected ServerProcess server() throws Exception {
            return OpenLibertyServer.javax();
        }
    }

    /** Open Liberty with servlet-6.0 (Jakarta EE 10, jakarta), Equinox OSGi, the servlet suite's payments WAR, embedded H2. */
    @Nested
    class OpenLibertyJakarta extends OpenLibertyScenarios {
        @Override
        protected ServerProcess server() throws Exception {
            return OpenLibertyServer.jakarta();
        }
    }
}
