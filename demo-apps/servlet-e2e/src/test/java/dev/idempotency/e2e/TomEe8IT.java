package dev.idempotency.e2e;

import dev.idempotency.e2e.scenarios.PaymentsScenarios;
import dev.idempotency.e2e.servers.ServerProcess;
import dev.idempotency.e2e.servers.TomEeServer;

/** Apache TomEE 8 web profile (Java EE 8, javax), the servlet suite's payments WAR, embedded H2. */
public class TomEe8IT extends PaymentsScenarios {
    @Override
    protected ServerProcess server() throws Exception {
        return TomEeServer.tomee8("payments-javax.war");
    }
}
