package dev.idempotency.e2e;

import dev.idempotency.e2e.servers.JettyServer;
import dev.idempotency.e2e.scenarios.LegacyScenarios;
import dev.idempotency.e2e.servers.ServerProcess;

/** The legacy shop relocated to jakarta on Jetty 12 (ee10), the embedded H2 default store. */
public class LegacyJetty12IT extends LegacyScenarios {
    @Override
    protected ServerProcess server() throws Exception {
        return JettyServer.legacyJetty12ee10();
    }
}
