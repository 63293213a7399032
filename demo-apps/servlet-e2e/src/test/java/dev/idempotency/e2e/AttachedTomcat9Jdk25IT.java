package dev.idempotency.e2e;

import dev.idempotency.e2e.support.E2eEnvironment;
import org.junit.jupiter.api.Test;

import java.nio.file.Files;
import java.nio.file.Path;

import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Attach on Java 25, where every agent loaded into a running JVM makes the JVM print a warning: the tool tells the
 * operator what they see and why.
 */
public class AttachedTomcat9Jdk25IT extends AttachedTomcat9IT {
    @Override
    protected Path jdk() {
        return E2eEnvironment.jdk25();
    }

    @Test
    public void theToolExplainsTheWarningTheJvmPrints() throws Exception {
        assertTrue(attach.out.contains("-XX:+EnableDynamicAgentLoading"), attach.toString());
        String log = Files.readString(server.log());
        assertTrue(log.contains("A Java agent has been loaded dynamically"), "the JVM's own warning is what the tool describes");
    }
}
