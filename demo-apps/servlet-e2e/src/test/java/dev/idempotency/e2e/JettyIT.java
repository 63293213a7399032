package dev.idempotency.e2e;

import dev.idempotency.e2e.scenarios.LegacyScenarios;
import dev.idempotency.e2e.scenarios.PaymentsScenarios;
import dev.idempotency.e2e.servers.JettyServer;
import dev.idempotency.e2e.servers.ServerProcess;
import org.junit.jupiter.api.Nested;

/** Stock Jetty 9.4, 11 and 12 running the payments and legacy-shop WARs. One nested class per row. */
public class JettyIT {
    /** Eclipse Jetty 9.4 (Servlet 3.1, javax), the embedded H2 default store. */
    @Nested
    class Jetty94H2 extends PaymentsScenarios {
        @Override
        protected boolean restartProvenByAnotherRow() {
            return true; // Jetty12H2
        }

        @Override
        protected ServerProcess server() throws Exception {
            return JettyServer.jetty94();
        }
    }

    /** Eclipse Jetty 11 (Servlet 5, jakarta), the embedded H2 default store. */
    @Nested
    class Jetty11H2 extends PaymentsScenarios {
        @Override
        protected boolean restartProvenByAnotherRow() {
            return true; // Jetty12H2
        }

        @Override
        protected ServerProcess server() throws Exception {
            return JettyServer.jetty11();
        }
    }

    /** Jetty 12 (ee10, jakarta), the embedded H2 default store. */
    @Nested
    class Jetty12H2 extends PaymentsScenarios {
        @Override
        protected ServerProcess server() throws Exception {
            return JettyServer.jetty12ee10();
        }
    }

    /** The legacy shop relocated to jakarta on Jetty 12 (ee10), the embedded H2 default store. */
    @Nested
    class LegacyJetty12 extends LegacyScenarios {
        @Override
        protected ServerProcess server() throws Exception {
            return JettyServer.legacyJetty12ee10();
        }
    }
}
