package dev.idempotency.e2e;

import dev.idempotency.e2e.servers.ServerProcess;
import dev.idempotency.e2e.scenarios.ServerScenarios;
import dev.idempotency.e2e.servers.TomcatServer;
import org.junit.jupiter.api.Test;

import java.net.http.HttpResponse;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A burst of large keyed bodies against a small memory budget whose requests may wait for room: none is refused, each
 * runs once, and they run in turn (two 200 KiB bodies fit half of a 1 MiB budget), so the burst takes at least three
 * rounds of the application's 1.5 s; without the budget all five would run at once.
 */
public class MemoryBudgetWaitTomcat9IT extends ServerScenarios {

    @Override
    protected ServerProcess server() throws Exception {
        return TomcatServer.tomcat9().set("idempotency.memory-budget", "1MiB").set("idempotency.max-request-bytes", "256KiB")
                .set("idempotency.memory-wait", "60s");
    }

    @Test
    public void aBurstBeyondTheBudgetIsServedInTurnEachRequestOnce() throws Exception {
        long before = client.count("charge");
        int requests = 5;
        CountDownLatch go = new CountDownLatch(1);
        List<CompletableFuture<HttpResponse<byte[]>>> sent = new ArrayList<>();
        for (int i = 0; i < requests; i++) {
            String key = key();
            sent.add(CompletableFuture.supplyAsync(() -> {
                try {
                    go.await();
                    return client.send(MemoryBudgetTomcat9IT.slowPayment(client, key));
                } catch (Exception e) {
                    throw new IllegalStateException(e);
                }
            }));
        }
        long start = System.nanoTime();
        go.countDown();
        for (CompletableFuture<HttpResponse<byte[]>> r : sent) assertEquals(201, r.get().statusCode(), text(r.get()));
        long tookMillis = (System.nanoTime() - start) / 1_000_000;
        assertEquals(before + requests, client.count("charge"));
        assertTrue(tookMillis >= 3 * 1500, "at most two at a time means three rounds of 1.5 s, took " + tookMillis + " ms");
    }
}
