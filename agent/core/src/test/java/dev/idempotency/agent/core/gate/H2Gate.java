package dev.idempotency.agent.core.gate;

import dev.idempotency.agent.core.config.AgentConfig;
import dev.idempotency.agent.core.config.ConfigSource;
import dev.idempotency.agent.core.protocol.Credentials;
import dev.idempotency.agent.core.lifecycle.StoreLifecycle;
import dev.idempotency.agent.core.telemetry.AgentMetrics;

import java.io.ByteArrayInputStream;
import java.nio.charset.StandardCharsets;
import java.util.Collections;
import java.util.Properties;

import static org.junit.jupiter.api.Assertions.assertNull;

/** The real gate on an embedded H2 store in memory, keeping responses up to 1 KiB: for tests of how exchanges end keys. */
public final class H2Gate {
    private static final byte[] BODY = "{\"amount\":1}".getBytes(StandardCharsets.UTF_8);

    public final AgentMetrics metrics = new AgentMetrics();
    public final AgentConfig config;
    public final IdempotencyGate gate;
    private final StoreLifecycle lifecycle;

    public H2Gate(String name) {
        Properties p = new Properties();
        p.setProperty("idempotency.store.url", "jdbc:h2:mem:" + name + "-" + java.util.UUID.randomUUID() + ";DB_CLOSE_DELAY=-1");
        p.setProperty("idempotency.max-response-bytes", "1KiB");
        config = AgentConfig.load(ConfigSource.of(p, Collections.emptyMap()));
        lifecycle = new StoreLifecycle(config.store, config.sweepInterval, metrics);
        gate = new IdempotencyGate(config, lifecycle, metrics);
    }

    public void close() {
        lifecycle.store().close();
    }

    /** A keyed POST /payments with a small JSON body, read and accepted. */
    public RequestCapture capture(String key) {
        RequestCapture capture = gate.capture("POST", "/payments", null, "application/json", Collections.singletonList(key),
                () -> new ByteArrayInputStream(BODY), BODY.length);
        assertNull(capture.problem());
        return capture;
    }

    public Decision decide(String key) {
        return gate.decide(capture(key), new Credentials(null, null), null);
    }
}
