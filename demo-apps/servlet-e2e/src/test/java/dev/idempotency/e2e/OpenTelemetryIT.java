package dev.idempotency.e2e;

import dev.idempotency.e2e.scenarios.LegacyScenarios;
import dev.idempotency.e2e.scenarios.OpenTelemetryScenarios;
import dev.idempotency.e2e.servers.ServerProcess;
import dev.idempotency.e2e.servers.TomcatServer;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The agent beside the OpenTelemetry Java agent on Tomcat 9, in either order. One nested class per row. */
public class OpenTelemetryIT {
    /** Tomcat 9, H2 store, with -javaagent:opentelemetry-javaagent.jar BEFORE our -javaagent. */
    @Nested
    class OpenTelemetryFirstTomcat9 extends OpenTelemetryScenarios {
        @Override
        protected boolean openTelemetryFirst() {
            return true;
        }
    }

    /** Tomcat 9, H2 store, with -javaagent:opentelemetry-javaagent.jar AFTER our -javaagent. */
    @Nested
    class OpenTelemetrySecondTomcat9 extends OpenTelemetryScenarios {
        @Override
        protected boolean restartProvenByAnotherRow() {
            return true; // OpenTelemetryFirstTomcat9
        }

        @Override
        protected boolean openTelemetryFirst() {
            return false;
        }
    }

    /**
     * The legacy shop beside the OpenTelemetry agent, its -javaagent first: the order in which OpenTelemetry adds its
     * generated interfaces to every servlet and filter before ours sees them. Filters that read the form first, a plain
     * servlet and a filter that is the application must all still be protected.
     */
    @Nested
    class LegacyOpenTelemetryFirstTomcat9 extends LegacyScenarios {
        @Override
        protected ServerProcess server() throws Exception {
            return TomcatServer.legacyTomcat9().jvmOptionsBeforeAgent(OpenTelemetryScenarios.openTelemetryOptions());
        }

        @Test
        public void bothAgentsRanAndOursInstrumentedEveryServletAndFilter() throws Exception {
            String log = java.nio.file.Files.readString(server.log());
            assertTrue(log.contains("opentelemetry-javaagent - version: "), "OpenTelemetry did not start");
            assertFalse(server.agentLines().contains("could not instrument"), server.agentLines());
        }
    }
}
