package dev.idempotency.e2e;

import dev.idempotency.e2e.servers.PayaraServer;
import dev.idempotency.e2e.scenarios.PaymentsScenarios;
import dev.idempotency.e2e.servers.ServerProcess;

/** Payara Server 5 (Java EE 8, javax; Felix OSGi), the servlet suite's payments WAR, embedded H2. */
public class Payara5IT extends PaymentsScenarios {
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
