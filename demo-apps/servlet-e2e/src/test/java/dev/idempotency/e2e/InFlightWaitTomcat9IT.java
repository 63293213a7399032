package dev.idempotency.e2e;

import dev.idempotency.e2e.support.AgentFigures;
import dev.idempotency.e2e.servers.ServerProcess;
import dev.idempotency.e2e.scenarios.ServerScenarios;
import dev.idempotency.e2e.servers.TomcatServer;
import dev.idempotency.store.testing.Await;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * {@code idempotency.on-in-flight=wait:…} on a stock Tomcat 9: a hundred concurrent duplicates of a slow payment wait for
 * the first instead of getting 409, the application runs once, and every duplicate gets the first response back byte
 * for byte; while they wait the store lends out no connection (the agent's own figures say so).
 */
public class InFlightWaitTomcat9IT extends ServerScenarios {
    private static final int DUPLICATES = 100;
    /** Long enough for all the duplicates to be waiting while it runs, even on a busy machine. */
    private static final int PAYMENT_MILLIS = 8000;
    private int jmxPort;
    private int metricsPort;

    @Override
    protected ServerProcess server() throws Exception {
        jmxPort = AgentFigures.freePort();
        metricsPort = AgentFigures.freePort();
        return AgentFigures.observable(TomcatServer.tomcat9(), jmxPort, metricsPort).set("idempotency.on-in-flight", "wait:60s");
    }

    @Test
    public void aHundredDuplicatesOfASlowPaymentGetItsReplayAndItRunsOnce() throws Exception {
        long before = client.count("charge");
        String key = key();
        CountDownLatch go = new CountDownLatch(1);
        ExecutorService clients = Executors.newFixedThreadPool(DUPLICATES);
        List<CompletableFuture<HttpResponse<byte[]>>> sent = new ArrayList<>();
        for (int i = 0; i < DUPLICATES; i++) {
            sent.add(CompletableFuture.supplyAsync(() -> {
                try {
                    go.await();
                    return client.send(client.request("/payments").header("Idempotency-Key", key).header("X-Delay-Ms", String.valueOf(PAYMENT_MILLIS))
                            .header("Content-Type", "application/json").POST(HttpRequest.BodyPublishers.ofString("{\"amount\":42}")));
                } catch (Exception e) {
                    throw new IllegalStateException(e);
                }
            }, clients));
        }
        go.countDown();
        long sentAt = System.nanoTime();

        // Sampled all along while every duplicate waits and the first still runs (it ends PAYMENT_MILLIS after it was
        // sent; sampling stops 2 s before): the store lends out no connection meanwhile.
        int maxConnectionsWhileWaiting = 0;
        int samples = 0;
        try (AgentFigures figures = new AgentFigures(jmxPort, metricsPort)) {
            Await.until("the duplicates waiting for the first", Duration.ofSeconds(30), () -> scrape(figures),
                    s -> s.getOrDefault("idempotency_requests_waiting", 0.0) >= DUPLICATES - 1);
            while (System.nanoTime() - sentAt < TimeUnit.MILLISECONDS.toNanos(PAYMENT_MILLIS - 2000)) {
                Map<String, Double> now = scrape(figures);
                if (now.get("idempotency_requests_waiting") >= DUPLICATES - 1) {
                    samples++;
                    maxConnectionsWhileWaiting = Math.max(maxConnectionsWhileWaiting, now.get("idempotency_store_connections_in_use").intValue());
                }
                LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(50)); // a sampling pace, not a wait for anything
            }
        }
        assertTrue(samples >= 5, "only " + samples + " samples while all duplicates waited");

        HttpResponse<byte[]> executed = null;
        List<HttpResponse<byte[]>> replays = new ArrayList<>();
        for (CompletableFuture<HttpResponse<byte[]>> f : sent) {
            HttpResponse<byte[]> r = f.get();
            assertEquals(201, r.statusCode(), text(r));
            if (r.headers().firstValue("Idempotent-Replayed").isPresent()) {
                replays.add(r);
            } else {
                assertTrue(executed == null, "two duplicates ran the application");
                executed = r;
            }
        }
        assertNotNull(executed, "no duplicate ran the application");
        assertEquals(DUPLICATES - 1, replays.size());
        for (HttpResponse<byte[]> replay : replays) assertReplayOf(executed, replay);
        assertEquals(before + 1, client.count("charge"), "the application ran once");
        assertEquals(0, maxConnectionsWhileWaiting, "store connections lent out while the duplicates waited");
        clients.shutdown();
    }

    private static Map<String, Double> scrape(AgentFigures figures) {
        try {
            return figures.scrape();
        } catch (IOException | InterruptedException e) {
            throw new IllegalStateException(e);
        }
    }
}
