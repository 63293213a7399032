package dev.idempotency.e2e;

import dev.idempotency.e2e.support.AgentTool;
import dev.idempotency.e2e.scenarios.PaymentsScenarios;
import dev.idempotency.e2e.servers.ServerProcess;
import dev.idempotency.e2e.servers.TomcatServer;
import dev.idempotency.store.testing.Await;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A stock Tomcat 9 started without the agent, serving; the operator attaches the agent with the jar's {@code attach}
 * command while a slow keyed request is inside the application. That request finishes normally, untouched; the whole
 * servlet suite then runs against the attached agent.
 */
public class AttachedTomcat9IT extends PaymentsScenarios {
    protected AgentTool.Result attach;

    /** The JDK the server and the tool run on. */
    protected Path jdk() {
        return Path.of(System.getProperty("java.home"));
    }

    @Override
    protected ServerProcess server() throws Exception {
        // A setting of the server's own, which the attach command line overrides.
        return TomcatServer.tomcat9().withAgent(false).javaHome(jdk()).set("idempotency.unknown-retention", "7d");
    }

    @BeforeAll
    public void attachWhileARequestIsInFlight() throws Exception {
        long before = client.count("charge");
        String key = key();
        // Long enough to outlast the attach: the tool's JVM starts and every loaded servlet and filter is retransformed.
        CompletableFuture<HttpResponse<byte[]>> inFlight = client.sendAsync(client.request("/payments").header("Idempotency-Key", key)
                .header("X-Delay-Ms", "15000").header("Content-Type", "application/json").POST(HttpRequest.BodyPublishers.ofString("{\"amount\":31}")));
        Await.until("the slow request to be inside the application", Duration.ofSeconds(30), this::charges, n -> n == before + 1);

        attach = AgentTool.run(jdk(), "", "attach", String.valueOf(server.pid()), "unknown-retention=45d");
        // The agent notes the requests in flight before the attach command returns: if this one still runs now, it was
        // one of them (on a slow machine the attach may outlast it, and then there is nothing to count).
        boolean stillRunning = !inFlight.isDone();
        assertEquals(0, attach.exit, attach.toString());
        assertTrue(attach.out.contains("attached to JVM " + server.pid()), attach.toString());

        HttpResponse<byte[]> untouched = inFlight.get();
        assertEquals(201, untouched.statusCode(), text(untouched));
        assertTrue(untouched.headers().firstValue("Idempotent-Replayed").isEmpty());
        assertEquals(before + 1, client.count("charge"));
        // Untouched: its key was never reserved, so the same request now is a new one (and protected from here on).
        HttpResponse<byte[]> again = client.postJson("/payments", key, "{\"amount\":31}");
        assertEquals(201, again.statusCode(), text(again));
        assertTrue(again.headers().firstValue("Idempotent-Replayed").isEmpty(), "the request before the attach left no key");
        assertEquals(before + 2, client.count("charge"));
        assertEquals("true", client.postJson("/payments", key, "{\"amount\":31}").headers().firstValue("Idempotent-Replayed").orElse(null));
        assertEquals(before + 2, client.count("charge"));
        if (stillRunning) assertTrue(server.agentLines().contains("1 request in flight now finish untouched"), server.agentLines());
        assertTrue(server.agentLines().contains("; unknown-retention=45d;"), "the attach command line wins: " + server.agentLines());
    }

    private long charges() {
        try {
            return client.count("charge");
        } catch (Exception e) {
            throw new IllegalStateException(e);
        }
    }

    @Test
    public void aSecondAttachSaysTheAgentIsAlreadyThere() throws Exception {
        AgentTool.Result again = AgentTool.run(jdk(), "", "attach", String.valueOf(server.pid()));
        assertEquals(0, again.exit, again.toString());
        assertTrue(again.out.contains("already attached"), again.toString());
        assertEquals(1, server.agentLines().split("INFO started idempotency-agent", -1).length - 1, server.agentLines());
    }

    @Test
    public void listJvmsShowsTheServer() throws Exception {
        AgentTool.Result jvms = AgentTool.run(jdk(), "", "list-jvms");
        assertEquals(0, jvms.exit, jvms.toString());
        assertTrue(jvms.out.lines().anyMatch(l -> l.startsWith(server.pid() + " ") && l.contains("org.apache.catalina.startup.Bootstrap")), jvms.toString());
    }

    /** The attached agent lasts as long as the JVM: after a restart the operator attaches again, and the replay survives. */
    @Override
    protected void afterRestart() throws Exception {
        AgentTool.Result reattach = AgentTool.run(jdk(), "", "attach", String.valueOf(server.pid()));
        assertEquals(0, reattach.exit, reattach.toString());
    }
}
