package dev.idempotency.e2e;

import dev.idempotency.e2e.support.Client;
import dev.idempotency.e2e.support.E2eEnvironment;
import dev.idempotency.e2e.servers.ServerProcess;
import dev.idempotency.e2e.scenarios.ServerScenarios;
import dev.idempotency.e2e.scenarios.SessionChecks;
import dev.idempotency.e2e.scenarios.TransparencyChecks;
import dev.idempotency.e2e.servers.WildFlyServer;

/**
 * WildFly 39 (Undertow) with the payments WAR, for what its container makes of the answers the application leaves to
 * it (error pages, redirects, locales, cookies, the session cookie it sets): the rest of WildFly's proof is the orders
 * suite ({@link WildFly39IT}).
 */
public class WildFly39AnswersIT extends ServerScenarios implements TransparencyChecks, SessionChecks {
    @Override
    protected ServerProcess server() throws Exception {
        return new WildFlyServer(E2eEnvironment.wildfly39(), E2eEnvironment.war("payments-jakarta.war")).application("/shop", "/ping");
    }

    @Override
    public Client client() {
        return client;
    }
}
