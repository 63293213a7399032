package dev.idempotency.e2e;

import dev.idempotency.e2e.scenarios.PaymentsScenarios;
import dev.idempotency.e2e.servers.ServerProcess;
import dev.idempotency.e2e.servers.TomcatServer;

/**
 * Tomcat 11 (Servlet 6.1, jakarta), the embedded H2 default store. Tomcat 11 suspends a wrapped response after a
 * forward by default: the forward scenario proves the agent still sends what the forward wrote. Servlet 6.1's
 * sendRedirect(String, int) is kept like the classic one.
 */
public class Tomcat11H2IT extends PaymentsScenarios {
    @Override
    protected ServerProcess server() throws Exception {
        return TomcatServer.tomcat11();
    }

    @Override
    protected boolean servlet61() {
        return true;
    }
}
