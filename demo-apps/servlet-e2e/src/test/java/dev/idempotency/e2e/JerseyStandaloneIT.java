package dev.idempotency.e2e;

import java.util.Collections;

/** Jersey 3 on the JDK HttpServer, an executable jar with no servlet container: the JAX-RS layer runs the protocol itself. */
class JerseyStandaloneIT extends JaxrsOrdersScenarios {
    @Override
    protected ServerProcess server() throws Exception {
        return new JarServer("jersey-standalone", E2eEnvironment.war("orders-jersey3-standalone.jar"), Collections.singletonList("{port}"))
                .application("", "/api/counters");
    }

    @Override
    protected boolean containerSuspendsRequests() {
        return false;
    }
}
