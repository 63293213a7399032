package dev.idempotency.e2e;

import dev.idempotency.e2e.support.AgentFigures;
import dev.idempotency.e2e.support.AgentTool;
import dev.idempotency.e2e.scenarios.PaymentsScenarios;
import dev.idempotency.e2e.servers.ServerProcess;
import dev.idempotency.e2e.servers.TomcatServer;
import dev.idempotency.store.testing.Await;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Tomcat 9 with the agent's figures published: the MBean over a real remote JMX connection and the Prometheus endpoint,
 * scraped all along while the whole servlet suite runs. A scenario of known requests must move every figure by exactly
 * what it played.
 */
public class ObservedTomcat9IT extends PaymentsScenarios {
    private int jmxPort;
    private int metricsPort;
    private final List<String> badScrapes = new ArrayList<>();
    private int scrapes;
    private ScheduledExecutorService scraper;

    @Override
    protected ServerProcess server() throws Exception {
        jmxPort = AgentFigures.freePort();
        metricsPort = AgentFigures.freePort();
        return AgentFigures.observable(TomcatServer.tomcat9(), jmxPort, metricsPort);
    }

    @BeforeAll
    public void scrapeAllAlong() throws Exception {
        AgentFigures figures = new AgentFigures(jmxPort, metricsPort);
        scraper = Executors.newSingleThreadScheduledExecutor();
        scraper.scheduleWithFixedDelay(() -> {
            try {
                figures.scrape();
                synchronized (badScrapes) {
                    scrapes++;
                }
            } catch (IOException restarting) {
                // the suite restarts the server once
            } catch (Throwable e) {
                synchronized (badScrapes) {
                    badScrapes.add(String.valueOf(e));
                }
            }
        }, 0, 100, TimeUnit.MILLISECONDS);
    }

    @AfterAll
    public void stopScraping() {
        if (scraper != null) scraper.shutdownNow();
    }

    @Test
    public void theFiguresMoveByExactlyTheRequestsPlayed() throws Exception {
        try (AgentFigures figures = new AgentFigures(jmxPort, metricsPort)) {
            Await.until("the agent's MBean", Duration.ofSeconds(10), () -> {
                try {
                    return figures.registered();
                } catch (Exception e) {
                    throw new IllegalStateException(e);
                }
            }, registered -> registered);
            Map<String, Long> jmxBefore = jmxCounters(figures);
            Map<String, Double> before = figures.scrape();
            long charges = client.count("charge");

            List<String> keys = new ArrayList<>();
            for (int i = 0; i < 3; i++) {
                keys.add(key());
                assertEquals(201, client.postJson("/payments", keys.get(i), "{\"amount\":" + (i + 1) + "}").statusCode());
            }
            for (int i = 0; i < 2; i++) assertEquals("true", client.postJson("/payments", keys.get(i), "{\"amount\":" + (i + 1) + "}")
                    .headers().firstValue("Idempotent-Replayed").orElse(null));
            assertProblem(client.postJson("/payments", keys.get(2), "{\"amount\":99}"), 422, "key-reused");
            assertProblem(client.send(client.request("/payments").header("Idempotency-Key", "\"unterminated")
                    .header("Content-Type", "application/json").POST(HttpRequest.BodyPublishers.ofString("{\"amount\":1}"))), 400, "key-invalid");
            String slowKey = key();
            CompletableFuture<HttpResponse<byte[]>> slow = client.sendAsync(client.request("/payments").header("Idempotency-Key", slowKey)
                    .header("X-Delay-Ms", "4000").header("Content-Type", "application/json").POST(HttpRequest.BodyPublishers.ofString("{\"amount\":5}")));
            Await.until("the slow request to charge", Duration.ofSeconds(10), () -> count(), n -> n == charges + 4);
            assertEquals(1, figures.counter("KeysInFlight"), "the slow request holds its key");
            assertTrue(figures.counter("MemoryHeldBytes") > 0, "the slow request's body and response buffer are held");
            assertProblem(client.postJson("/payments", slowKey, "{\"amount\":5}"), 409, "request-in-progress");
            assertEquals(201, slow.get().statusCode());

            Map<String, Long> jmxAfter = jmxCounters(figures);
            Map<String, Double> after = figures.scrape();
            Map<String, Long> played = new HashMap<>();
            played.put("executed", 4L);
            played.put("replayed", 2L);
            played.put("mismatch", 1L);
            played.put("bad_key", 1L);
            played.put("in_flight", 1L);
            for (String outcome : new String[] {"executed", "replayed", "in_flight", "mismatch", "unknown", "not_kept",
                    "store_unavailable", "unprotected", "bad_key", "too_large", "unreadable", "agent_fault", "over_budget"}) {
                long expected = played.getOrDefault(outcome, 0L);
                String sample = "idempotency_requests_total{outcome=\"" + outcome + "\"}";
                assertEquals(expected, after.get(sample) - before.get(sample), 0.0, sample);
                String attribute = "Requests" + camel(outcome);
                assertEquals(expected, jmxAfter.get(attribute) - jmxBefore.get(attribute), attribute);
            }
            assertEquals(4.0, after.get("idempotency_completions_total{result=\"recorded\"}") - before.get("idempotency_completions_total{result=\"recorded\"}"));
            // Every request that reached the store reserved once; each executed one completed once.
            assertEquals(8.0, after.get("idempotency_store_reserve_duration_seconds_count") - before.get("idempotency_store_reserve_duration_seconds_count"));
            assertEquals(4.0, after.get("idempotency_store_complete_duration_seconds_count") - before.get("idempotency_store_complete_duration_seconds_count"));
            assertEquals(1.0, after.get("idempotency_store_up"));
            assertEquals(0.0, after.get("idempotency_keys_in_flight"));
            assertTrue(after.get("idempotency_memory_budget_bytes") > 0);
            // given back as each exchange ends, just after its response left
            Await.until("the agent to give back what it held", Duration.ofSeconds(10), () -> memoryHeld(figures), held -> held == 0);
            assertEquals(Boolean.TRUE, figures.attribute("StoreUp"));
            assertTrue(((Double) figures.attribute("ReserveP99Millis")) >= (Double) figures.attribute("ReserveP50Millis"));
            assertTrue(((Double) figures.attribute("ReserveP50Millis")) > 0);
            assertTrue(((Number) figures.invoke("sweepNow")).intValue() >= 0);
            assertTrue(((Number) figures.invoke("purgeNow")).intValue() >= 0);
            assertEquals(charges + 4, client.count("charge"));
        }
        synchronized (badScrapes) {
            assertTrue(badScrapes.isEmpty(), badScrapes.toString());
            assertTrue(scrapes > 0, "the endpoint was scraped while the suite ran");
        }
    }

    /** An agent started with -javaagent is found by attach too: nothing is loaded twice. */
    @Test
    public void attachToAServerRunningTheAgentSaysItIsAlreadyThere() throws Exception {
        AgentTool.Result again = AgentTool.run("attach", String.valueOf(server.pid()));
        assertEquals(0, again.exit, again.toString());
        assertTrue(again.out.contains("already attached: the agent is running idempotency-agent in JVM " + server.pid()), again.toString());
        assertEquals(1, server.agentLines().split("INFO started idempotency-agent", -1).length - 1, server.agentLines());
    }

    private static long memoryHeld(AgentFigures figures) {
        try {
            return figures.counter("MemoryHeldBytes");
        } catch (Exception e) {
            throw new IllegalStateException(e);
        }
    }

    private long count() {
        try {
            return client.count("charge");
        } catch (Exception e) {
            throw new IllegalStateException(e);
        }
    }

    private static Map<String, Long> jmxCounters(AgentFigures figures) throws Exception {
        Map<String, Long> counters = new HashMap<>();
        for (String outcome : new String[] {"executed", "replayed", "in_flight", "mismatch", "unknown", "not_kept",
                "store_unavailable", "unprotected", "bad_key", "too_large", "unreadable", "agent_fault", "over_budget"}) {
            counters.put("Requests" + camel(outcome), figures.counter("Requests" + camel(outcome)));
        }
        return counters;
    }

    private static String camel(String label) {
        StringBuilder out = new StringBuilder();
        for (String part : label.split("_")) out.append(Character.toUpperCase(part.charAt(0))).append(part.substring(1));
        return out.toString();
    }
}
