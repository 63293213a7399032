package dev.idempotency.e2e;

import dev.idempotency.e2e.scenarios.PaymentsScenarios;
import dev.idempotency.e2e.servers.ServerProcess;
import dev.idempotency.e2e.servers.TomEeServer;

/** Apache TomEE 9 web profile (Jakarta EE 9.1, jakarta), the servlet suite's payments WAR, embedded H2. */
public class TomEe9IT extends PaymentsScenarios {
    @Override
    protected ServerProcess server() throws Exception {
        return TomEeServer.tomee9("payments-jakarta.war");
    }
}
