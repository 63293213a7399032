package dev.idempotency.e2e;

import dev.idempotency.e2e.scenarios.JaxrsOrdersScenarios;
import dev.idempotency.e2e.scenarios.ServerScenarios;
import dev.idempotency.e2e.scenarios.SessionChecks;
import dev.idempotency.e2e.scenarios.TransparencyChecks;
import dev.idempotency.e2e.servers.OrdersServers;
import dev.idempotency.e2e.servers.ServerProcess;
import dev.idempotency.e2e.servers.WildFlyServer;
import dev.idempotency.e2e.support.Client;
import dev.idempotency.e2e.support.E2eEnvironment;
import org.junit.jupiter.api.Nested;

/** WildFly 26 and 39: JAX-RS on the server's own RESTEasy, and the answers the agent gives there. One nested class per row. */
public class WildFlyIT {
    /** WildFly 26.1 (Java EE 8, javax), the WAR's JAX-RS resources on the server's own RESTEasy. */
    @Nested
    class WildFly26 extends JaxrsOrdersScenarios {
        @Override
        protected boolean restartProvenByAnotherRow() {
            return true; // WildFly39
        }

        @Override
        protected ServerProcess server() throws Exception {
            return OrdersServers.onWildFly(E2eEnvironment.wildfly26(), "orders-ee8.war");
        }
    }

    /** WildFly 39 (Jakarta EE 10), the WAR's JAX-RS resources on the server's own RESTEasy. */
    @Nested
    class WildFly39 extends JaxrsOrdersScenarios {
        @Override
        protected ServerProcess server() throws Exception {
            return OrdersServers.onWildFly(E2eEnvironment.wildfly39(), "orders-ee10.war");
        }
    }

    /**
     * WildFly 39 (Undertow) with the payments WAR, for what its container makes of the answers the application leaves to
     * it (error pages, redirects, locales, cookies, the session cookie it sets): the rest of WildFly's proof is the orders
     * suite ({@link WildFly39}).
     */
    @Nested
    class WildFly39Answers extends ServerScenarios implements TransparencyChecks, SessionChecks {
        @Override
        protected ServerProcess server() throws Exception {
            return new WildFlyServer(E2eEnvironment.wildfly39(), E2eEnvironment.war("payments-jakarta.war")).application("/shop", "/ping");
        }

        @Override
        public Client client() {
            return client;
        }
    }
}
