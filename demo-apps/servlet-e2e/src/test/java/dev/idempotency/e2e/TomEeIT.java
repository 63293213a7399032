package dev.idempotency.e2e;

import dev.idempotency.e2e.scenarios.JaxrsOrdersScenarios;
import dev.idempotency.e2e.scenarios.PaymentsScenarios;
import dev.idempotency.e2e.servers.ServerProcess;
import dev.idempotency.e2e.servers.TomEeServer;
import org.junit.jupiter.api.Nested;

/** Apache TomEE 8 and 9: the payments WAR, and JAX-RS on the server's own CXF. One nested class per row. */
public class TomEeIT {
    /** Apache TomEE 8 web profile (Java EE 8, javax), the servlet suite's payments WAR, embedded H2. */
    @Nested
    class TomEe8 extends PaymentsScenarios {
        @Override
        protected boolean restartProvenByAnotherRow() {
            return true; // TomEe9
        }

        @Override
        protected ServerProcess server() throws Exception {
            return TomEeServer.tomee8("payments-javax.war");
        }
    }

    /** Apache TomEE 8 web profile, the orders WAR's JAX-RS resources on the server's own CXF. */
    @Nested
    class TomEe8Cxf extends JaxrsOrdersScenarios {
        @Override
        protected boolean restartProvenByAnotherRow() {
            return true; // TomEe9
        }

        @Override
        protected ServerProcess server() throws Exception {
            return TomEeServer.tomee8("orders-ee8.war").application("/shop", "/api/counters");
        }
    }

    /** Apache TomEE 9 web profile (Jakarta EE 9.1, jakarta), the servlet suite's payments WAR, embedded H2. */
    @Nested
    class TomEe9 extends PaymentsScenarios {
        @Override
        protected ServerProcess server() throws Exception {
            return TomEeServer.tomee9("payments-jakarta.war");
        }
    }

    /** Apache TomEE 9 web profile, the orders WAR's JAX-RS resources on the server's own CXF. */
    @Nested
    class TomEe9Cxf extends JaxrsOrdersScenarios {
        @Override
        protected boolean restartProvenByAnotherRow() {
            return true; // TomEe9
        }

        @Override
        protected ServerProcess server() throws Exception {
            return TomEeServer.tomee9("orders-ee10.war").application("/shop", "/api/counters");
        }
    }
}
