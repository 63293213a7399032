package dev.idempotency.agent.core.gate;

import dev.idempotency.agent.core.config.AgentConfig;
import dev.idempotency.agent.core.config.ConfigSource;
import dev.idempotency.agent.core.lifecycle.StoreLifecycle;
import dev.idempotency.agent.core.telemetry.AgentMetrics;
import dev.idempotency.agent.core.telemetry.Outcome;
import org.junit.jupiter.api.Test;

import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.util.Collections;
import java.util.Properties;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** What taking a keyed body costs the memory budget, on every way out of the capture (no store is touched). */
class CaptureMemoryTest {
    private final AgentMetrics metrics = new AgentMetrics();
    private final IdempotencyGate gate;

    CaptureMemoryTest() {
        Properties p = new Properties();
        p.setProperty("idempotency.store.url", "jdbc:h2:mem:capture-" + java.util.UUID.randomUUID());
        p.setProperty("idempotency.memory-budget", "1MiB");
        p.setProperty("idempotency.max-request-bytes", "256KiB");
        p.setProperty("idempotency.memory-wait", "0s");
        AgentConfig config = AgentConfig.load(ConfigSource.of(p, Collections.emptyMap()));
        gate = new IdempotencyGate(config, new StoreLifecycle(config.store, config.sweepInterval, metrics), metrics);
    }

    private RequestCapture capture(String contentType, byte[] body, long declaredLength) {
        return gate.capture("POST", "/upload", null, contentType, Collections.singletonList("k-" + System.nanoTime()),
                () -> new ByteArrayInputStream(body), declaredLength);
    }

    @Test
    void aCapturedBodyIsChargedUntilItsExchangeEnds() {
        byte[] body = new byte[100_000];
        RequestCapture taken = capture("application/octet-stream", body, body.length);
        assertNull(taken.problem());
        assertEquals(body.length, gate.memory().used());
        taken.releaseMemory();
        assertEquals(0, gate.memory().used());
    }

    @Test
    void everyRefusedOrFailedCaptureGivesItsChargeBack() {
        byte[] malformed = "--b\r\nContent-Disposition: form-data; name=\"a\"\r\n\r\nno closing boundary".getBytes(StandardCharsets.UTF_8);
        for (int i = 0; i < 10; i++) {
            RequestCapture bad = capture("multipart/form-data; boundary=b", malformed, malformed.length);
            assertNotNull(bad.problem(), "a malformed multipart body is refused");
            assertEquals(Outcome.UNREADABLE, bad.refusal());
        }
        byte[] shortBody = new byte[1000];
        assertNotNull(capture("application/octet-stream", shortBody, 5000).problem(), "a body shorter than its Content-Length");
        RequestCapture broken = gate.capture("POST", "/upload", null, "application/octet-stream", Collections.singletonList("k-io"),
                () -> new InputStream() {
                    @Override public int read() throws IOException { throw new IOException("connection reset"); }
                }, 200_000);
        assertNotNull(broken.problem());
        assertEquals(0, gate.memory().used(), "nothing holds the bodies of refused requests");
    }

    @Test
    void bodiesBeyondHalfTheBudgetAreRefusedBeforeAByteIsRead() {
        RequestCapture first = capture("application/octet-stream", new byte[200_000], 200_000);
        RequestCapture second = capture("application/octet-stream", new byte[200_000], 200_000);
        assertNull(first.problem());
        assertNull(second.problem());
        boolean[] opened = new boolean[1];
        RequestCapture third = gate.capture("POST", "/upload", null, "application/octet-stream", Collections.singletonList("k-3"),
                () -> {
                    opened[0] = true;
                    return new ByteArrayInputStream(new byte[200_000]);
                }, 200_000);
        assertEquals(Outcome.OVER_BUDGET, third.refusal());
        assertTrue(!opened[0], "the refused body was never opened");
        assertEquals(503, third.problem().status());
        first.releaseMemory();
        assertNull(capture("application/octet-stream", new byte[200_000], 200_000).problem(), "room again once one ended");
    }

    /** A small refused body is read to its end before the 413 (no reset of a client still sending); a large one never. */
    @Test
    void aDeclaredOversizedBodyIsDrainedWhenSmallAndLeftUnreadWhenLarge() {
        ByteArrayInputStream small = new ByteArrayInputStream(new byte[300 * 1024]);
        RequestCapture refused = gate.capture("POST", "/upload", null, "application/octet-stream", Collections.singletonList("k-s"),
                () -> small, 300 * 1024);
        assertEquals(413, refused.problem().status());
        assertEquals(0, small.available(), "read to its end");
        boolean[] opened = new boolean[1];
        RequestCapture large = gate.capture("POST", "/upload", null, "application/octet-stream", Collections.singletonList("k-l"),
                () -> {
                    opened[0] = true;
                    return new ByteArrayInputStream(new byte[0]);
                }, IdempotencyGate.DRAINED_UP_TO + 1);
        assertEquals(413, large.problem().status());
        assertTrue(!opened[0], "a large refused body is never opened");
    }
}
