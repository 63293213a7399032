package dev.idempotency.agent.core.lifecycle;

import dev.idempotency.agent.core.log.AgentLog;
import dev.idempotency.agent.core.telemetry.AgentMetrics;
import dev.idempotency.store.StoreSettings;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** What a store found worth knowing at its opening reaches the host's log as a warning after the start-up line. */
class StoreCautionsTest {

    private static String logOfOpening(String url) {
        ByteArrayOutputStream captured = new ByteArrayOutputStream();
        PrintStream before = AgentLog.writeTo(new PrintStream(captured, true));
        StoreLifecycle lifecycle = new StoreLifecycle(StoreSettings.builder().url(url).connectTimeout(Duration.ofSeconds(15)).build(),
                Duration.ofMinutes(1),
                new AgentMetrics());
        try {
            lifecycle.store();
        } finally {
            AgentLog.writeTo(before);
            lifecycle.store().close();
        }
        return new String(captured.toByteArray(), StandardCharsets.UTF_8);
    }

    @Test
    void anInMemoryStoreIsLoggedAsAWarningThatARestartForgetsEveryKey() {
        String log = logOfOpening("jdbc:h2:mem:cautions-" + System.nanoTime() + ";DB_CLOSE_DELAY=-1");
        assertTrue(log.contains("store open: h2"), log);
        assertTrue(log.matches("(?s).*WARN[^\\n]*store: an H2 database in memory forgets every key when its JVM stops.*"), log);
    }

    @Test
    void aStoreOnFileOpensWithoutAWarning(@TempDir Path directory) {
        String log = logOfOpening("jdbc:h2:file:" + directory.resolve("keys").toAbsolutePath());
        assertTrue(log.contains("store open: h2"), log);
        // only the cautions' line: other warnings (a slow first connection, say) are not this test's
        assertFalse(log.matches("(?s).*WARN[^\\n]*store: .*"), log);
    }
}
