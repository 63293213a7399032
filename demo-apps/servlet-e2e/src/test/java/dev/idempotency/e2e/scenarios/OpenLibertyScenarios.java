package dev.idempotency.e2e.scenarios;

import dev.idempotency.e2e.servers.ServerProcess;
import dev.idempotency.store.testing.Await;
import org.junit.jupiter.api.Test;

import java.time.Duration;

import static org.junit.jupiter.api.Assertions.assertFalse;

/**
 * The servlet suite on Open Liberty, and what Liberty adds: it names its own MBean server builder, which lives on its
 * class path, so the agent's MBean is registered only if the agent creates the platform MBean server the host's way.
 */
public abstract class OpenLibertyScenarios extends PaymentsScenarios {

    @Override
    protected ServerProcess configure(ServerProcess server) {
        return super.configure(server).set("idempotency.log.level", "debug");
    }

    /** Liberty holds a request that declares 2^31 bytes or more before any filter or servlet sees it. */
    @Override
    protected boolean dispatchesLengthsBeyondTwoGigabytes() {
        return false;
    }

    @Test
    public void theAgentsMBeanIsRegisteredInLibertysMBeanServer() throws Exception {
        client.postJson("/payments", key(), "{\"amount\":1}"); // the agent registers its MBean once requests come
        String lines = Await.until("the MBean registration to be reported", Duration.ofSeconds(20), this::agentLines,
                l -> l.contains("MBean dev.idempotency:type=Agent registered") || l.contains("could not register the MBean"));
        assertFalse(lines.contains("could not register the MBean"), lines);
    }

    private String agentLines() {
        try {
            return server.agentLines();
        } catch (java.io.IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
    }
}
