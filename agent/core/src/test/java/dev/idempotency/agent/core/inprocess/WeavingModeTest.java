package dev.idempotency.agent.core.inprocess;

import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

import java.lang.reflect.Method;
import java.util.Arrays;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;

/** This JVM's servlet APIs were woven the way its mode weaves, so the scenarios ran through the path they claim. */
@Tag(InProcessAgent.TAG)
class WeavingModeTest {
    /** The start-up weaver keeps each woven method's original beside it, so named (EntryWeaver.ORIGINAL_SUFFIX). */
    private static final String ORIGINAL_SUFFIX = "$idempotencyOriginal";

    @Test
    void theServletApisWereWovenTheWayThisModeWeaves() {
        InProcessAgent.Weaving weaving = InProcessAgent.requireRunning();
        boolean atStartUp = weaving == InProcessAgent.Weaving.STARTUP;
        assertEquals(!atStartUp, InProcessAgent.state().endsWith("(attached)"), InProcessAgent.state());
        for (Class<?> httpServlet : List.of(javax.servlet.http.HttpServlet.class,
                jakarta.servlet.http.HttpServlet.class)) {
            boolean keepsOriginal = Arrays.stream(httpServlet.getDeclaredMethods()).map(Method::getName)
                    .anyMatch(name -> name.endsWith(ORIGINAL_SUFFIX));
            // a retransformation (attach) may add no method; the start-up weaver defines the class with one added
            assertEquals(atStartUp, keepsOriginal, httpServlet.getName() + " in mode " + weaving);
        }
    }
}
