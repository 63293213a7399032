package dev.idempotency.e2e;

import dev.idempotency.e2e.scenarios.PaymentsScenarios;
import dev.idempotency.e2e.servers.PayaraServer;
import dev.idempotency.e2e.servers.ServerProcess;
import org.junit.jupiter.api.Nested;

/** Payara Server 5 and 6 running the payments WAR. One nested class per row. */
public class PayaraIT {
    /** Payara Server 5 (Java EE 8, javax; Felix OSGi), the servlet suite's payments WAR, embedded H2. */
    @Nested
    class Payara5 extends PaymentsScenarios {
        @Override
        protected boolean restartProvenByAnotherRow() {
            return true; // Payara6
        }

        @Override
        protected ServerProcess server() throws Exception {
            return PayaraServer.payara5();
        }

        /** Payara holds a request that declares 2^31 bytes or more before any filter or servlet sees it (no servlet loaded). */
        @Override
        protected boolean dispatchesLengthsBeyondTwoGigabytes() {
            return false;
        }
    }

    /** Payara Server 6 (Jakarta EE 10, jakarta; Felix OSGi), the servlet suite's payments WAR, embedded H2. */
    @Nested
    class Payara6 extends PaymentsScenarios {
        @Override
        protected ServerProcess server() throws Exception {
            return PayaraServer.payara6();
        }

        @Override
        protected boolean containerRefusesNonAsciiHeaderValues() {
            return true;
        }

        /** Payara holds a request that declares 2^31 bytes or more before any filter or servlet sees it (no servlet loaded). */
        @Override
        protected boolean dispatchesLengthsBeyondTwoGigabytes() {
            return false;
        }
    }
}
