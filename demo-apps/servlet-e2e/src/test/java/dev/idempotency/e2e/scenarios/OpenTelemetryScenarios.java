package dev.idempotency.e2e.scenarios;

import dev.idempotency.e2e.support.E2eEnvironment;
import dev.idempotency.e2e.servers.ServerProcess;
import dev.idempotency.e2e.servers.TomcatServer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.util.List;
import java.util.stream.Collectors;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The full servlet suite on a stock Tomcat 9 that also runs the OpenTelemetry Java agent (exporting nowhere), its
 * -javaagent before or after ours: both agents must load, and ours must behave exactly as it does alone.
 */
public abstract class OpenTelemetryScenarios extends PaymentsScenarios {
    private static final String OTEL_STARTED = "opentelemetry-javaagent - version: ";
    private static final String OUR_STARTED = "[idempotency-agent] INFO started idempotency-agent";

    /** Whether the OpenTelemetry agent's -javaagent comes before ours on the command line. */
    protected abstract boolean openTelemetryFirst();

    @Override
    protected ServerProcess server() throws Exception {
        String[] otel = openTelemetryOptions();
        ServerProcess tomcat = TomcatServer.tomcat9();
        return openTelemetryFirst() ? tomcat.jvmOptionsBeforeAgent(otel) : tomcat.jvmOptionsAfterAgent(otel);
    }

    /** The OpenTelemetry agent, exporting nowhere. */
    public static String[] openTelemetryOptions() {
        return new String[] {"-javaagent:" + E2eEnvironment.otelAgentJar(),
                "-Dotel.traces.exporter=none", "-Dotel.metrics.exporter=none", "-Dotel.logs.exporter=none",
                "-Dotel.service.name=e2e"};
    }

    /** Fails if OpenTelemetry silently did not load: its premain logs its version, in command-line order with ours. */
    @Test
    @Order(2)
    public void theOpenTelemetryAgentStartedInItsPlaceBesideOurs() throws Exception {
        List<String> log = Files.readAllLines(server.log(), StandardCharsets.UTF_8);
        int otel = indexOf(log, OTEL_STARTED);
        int ours = indexOf(log, OUR_STARTED);
        String all = String.join("\n", log);
        assertTrue(otel >= 0, "OpenTelemetry did not announce itself:\n" + all);
        assertTrue(ours >= 0, "our agent did not announce itself:\n" + all);
        assertTrue(log.get(otel).contains(OTEL_STARTED + E2eEnvironment.otelAgentVersion()), log.get(otel));
        assertEquals(openTelemetryFirst(), otel < ours, "the agents started out of command-line order:\n" + all);
        List<String> otelErrors = log.stream().filter(l -> l.startsWith("[otel.javaagent") && l.contains("] ERROR ")).collect(Collectors.toList());
        assertTrue(otelErrors.isEmpty(), String.join("\n", otelErrors));
    }

    /**
     * After the suite, before the restart: every class of the host (container, application, store driver) that ours
     * examined was instrumented or passed over, none failed: a failure on a servlet or a filter leaves it unprotected.
     */
    @Test
    @Order(Integer.MAX_VALUE - 1)
    public void ourAgentFailedToInstrumentNoClassOfTheHost() throws Exception {
        List<String> failures = instrumentationFailures().stream()
                .filter(l -> !l.contains("could not instrument io.opentelemetry.")).collect(Collectors.toList());
        assertTrue(failures.isEmpty(), failures.size() + " failure(s):\n" + String.join("\n", failures));
    }

    /** OpenTelemetry's own classes are none of our business: no attempt on them, so no warning flood either. */
    @Test
    @Order(Integer.MAX_VALUE - 1)
    public void ourAgentFailedOnNoneOfOpenTelemetrysOwnClasses() throws Exception {
        List<String> failures = instrumentationFailures().stream()
                .filter(l -> l.contains("could not instrument io.opentelemetry.")).collect(Collectors.toList());
        assertTrue(failures.isEmpty(), failures.size() + " failure(s), the first:\n"
                + String.join("\n", failures.subList(0, Math.min(5, failures.size()))));
    }

    /** Nothing went wrong for our agent during the whole suite (the base class checks this at start-up only). */
    @Test
    @Order(Integer.MAX_VALUE - 1)
    public void ourAgentLoggedNoErrorDuringTheSuite() throws Exception {
        List<String> errors = server.agentLines().lines().filter(l -> l.startsWith("[idempotency-agent] ERROR")).collect(Collectors.toList());
        assertTrue(errors.isEmpty(), String.join("\n", errors));
    }

    private List<String> instrumentationFailures() throws Exception {
        String lines = server.agentLines();
        assertTrue(lines.contains("INFO started idempotency-agent"), lines);
        return lines.lines().filter(l -> l.contains("could not instrument")).collect(Collectors.toList());
    }

    private static int indexOf(List<String> log, String text) {
        for (int i = 0; i < log.size(); i++) if (log.get(i).contains(text)) return i;
        return -1;
    }
}
