package dev.idempotency.e2e;

import dev.idempotency.e2e.scenarios.LegacyScenarios;
import dev.idempotency.e2e.servers.ServerProcess;
import dev.idempotency.e2e.servers.TomcatServer;

/** The legacy shop relocated to jakarta on Tomcat 10.1, the embedded H2 default store. */
public class LegacyTomcat10IT extends LegacyScenarios {
    @Override
    protected ServerProcess server() throws Exception {
        return TomcatServer.legacyTomcat10();
    }
}
