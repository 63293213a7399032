package dev.idempotency.agent.core.gate;

import dev.idempotency.agent.core.config.AgentConfig;
import dev.idempotency.agent.core.config.ConfigSource;
import dev.idempotency.agent.core.lifecycle.StoreLifecycle;
import dev.idempotency.agent.core.telemetry.AgentMetrics;
import org.junit.jupiter.api.Test;

import java.nio.charset.StandardCharsets;
import java.util.Collections;
import java.util.Properties;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The gate's own answers speak of the header the agent is configured to read (no store is touched). */
class GateAnswersTest {

    @Test
    void anAgentFaultNamesTheConfiguredHeader() {
        Properties p = new Properties();
        p.setProperty("idempotency.store.url", "jdbc:h2:mem:answers-" + java.util.UUID.randomUUID());
        p.setProperty("idempotency.header", "X-Request-Key");
        AgentConfig config = AgentConfig.load(ConfigSource.of(p, Collections.emptyMap()));
        AgentMetrics metrics = new AgentMetrics();
        IdempotencyGate gate = new IdempotencyGate(config, new StoreLifecycle(config.store, config.sweepInterval, metrics), metrics);

        Answer fault = gate.agentFault();
        String problem = new String(fault.body(), StandardCharsets.UTF_8);
        assertEquals(503, fault.status());
        assertTrue(problem.contains("Retry later with the same X-Request-Key."), problem);
        assertFalse(problem.contains("Idempotency-Key"), problem);
    }
}
