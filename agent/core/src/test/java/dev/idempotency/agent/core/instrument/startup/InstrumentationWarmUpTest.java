package dev.idempotency.agent.core.instrument.startup;

import dev.idempotency.agent.core.log.AgentLog;
import org.junit.jupiter.api.Test;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;

/** The start-up warm-up weaves its made-up servlet and filter, and says nothing to the host's log while doing so. */
class InstrumentationWarmUpTest {

    @Test
    void theWarmUpWeavesBothMadeUpClassesSilently() {
        ByteArrayOutputStream captured = new ByteArrayOutputStream();
        PrintStream before = AgentLog.writeTo(new PrintStream(captured, true));
        int woven;
        try {
            woven = InstrumentationWarmUp.run(new StartUpTransformer());
        } finally {
            AgentLog.writeTo(before);
        }
        String said = new String(captured.toByteArray(), StandardCharsets.UTF_8);
        assertEquals(2, woven, said);
        assertFalse(said.contains("WARN") || said.contains("ERROR"), said);
    }
}
