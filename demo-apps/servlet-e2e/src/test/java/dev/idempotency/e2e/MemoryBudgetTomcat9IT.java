package dev.idempotency.e2e;

import dev.idempotency.e2e.support.Client;
import dev.idempotency.e2e.servers.ServerProcess;
import dev.idempotency.e2e.scenarios.ServerScenarios;
import dev.idempotency.e2e.servers.TomcatServer;
import org.junit.jupiter.api.Test;

import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The agent's memory budget on a stock Tomcat 9, with no waiting for room (memory-wait 0s): request bodies beyond half
 * of it are refused with 503 before they are read (the application never runs for them, and they run once the budget
 * has room again); a response the budget cannot hold reaches its client whole and is recorded as not kept, so its retry
 * is a 409, never a second run. {@link MemoryBudgetWaitTomcat9IT} shows the same burst served in turn.
 */
public class MemoryBudgetTomcat9IT extends ServerScenarios {
    private static final int BODY_BYTES = 200 * 1024;

    @Override
    protected ServerProcess server() throws Exception {
        // 1 MiB budget: request bodies may hold 512 KiB of it, so two of these 200 KiB bodies at once, not three.
        return TomcatServer.tomcat9().set("idempotency.memory-budget", "1MiB").set("idempotency.max-request-bytes", "256KiB")
                .set("idempotency.max-response-bytes", "2MiB").set("idempotency.memory-wait", "0s");
    }

    @Test
    public void bodiesBeyondTheBudgetAreRefusedBeforeTheyRunAndRunOnceThereIsRoom() throws Exception {
        long before = client.count("charge");
        int requests = 5;
        List<String> keys = new ArrayList<>();
        for (int i = 0; i < requests; i++) keys.add(key());
        CountDownLatch go = new CountDownLatch(1);
        List<CompletableFuture<HttpResponse<byte[]>>> sent = new ArrayList<>();
        for (String key : keys) {
            sent.add(CompletableFuture.supplyAsync(() -> {
                try {
                    go.await();
                    return client.send(slowPayment(client, key));
                } catch (Exception e) {
                    throw new IllegalStateException(e);
                }
            }));
        }
        go.countDown();
        List<String> ran = new ArrayList<>();
        List<String> refused = new ArrayList<>();
        List<HttpResponse<byte[]>> firstAnswers = new ArrayList<>();
        for (int i = 0; i < requests; i++) {
            HttpResponse<byte[]> r = sent.get(i).get();
            firstAnswers.add(r);
            if (r.statusCode() == 201) {
                ran.add(keys.get(i));
            } else {
                assertProblem(r, 503, "agent-busy");
                assertEquals("1", r.headers().firstValue("Retry-After").orElse(null), text(r));
                refused.add(keys.get(i));
            }
        }
        assertTrue(ran.size() >= 1 && ran.size() <= 2, "at most two 200 KiB bodies fit half of a 1 MiB budget: " + ran.size() + " ran");
        assertTrue(refused.size() >= 3, "five overlapping requests, at most two admitted: " + refused.size() + " refused");
        assertEquals(before + ran.size(), client.count("charge"), "a refused request never reaches the application");

        // The budget was given back: every refused request now runs, once; every admitted one replays.
        for (int i = 0; i < requests; i++) {
            HttpResponse<byte[]> retry = client.send(slowPayment(client, keys.get(i)));
            if (ran.contains(keys.get(i))) assertReplayOf(firstAnswers.get(i), retry);
            else assertEquals(201, retry.statusCode(), text(retry));
        }
        assertEquals(before + requests, client.count("charge"));
    }

    @Test
    public void aResponseTheBudgetCannotHoldReachesItsClientWholeAndIsNeverRunAgain() throws Exception {
        long before = client.count("statement");
        String key = key();
        int size = 1_500_000; // within max-response-bytes, beyond the whole 1 MiB budget
        HttpResponse<byte[]> first = client.send(client.request("/statements?size=" + size).header("Idempotency-Key", key)
                .POST(HttpRequest.BodyPublishers.noBody()));
        assertEquals(200, first.statusCode());
        assertEquals(size, first.body().length);
        long id = Long.parseLong(first.headers().firstValue("X-Statement-Id").orElseThrow());
        byte[] expected = new byte[size];
        for (int i = 0; i < size; i++) expected[i] = (byte) (i * 31 + id);
        assertTrue(Arrays.equals(expected, first.body()), "every byte, in order");

        HttpResponse<byte[]> retry = client.send(client.request("/statements?size=" + size).header("Idempotency-Key", key)
                .POST(HttpRequest.BodyPublishers.noBody()));
        assertProblem(retry, 409, "response-not-kept");
        assertTrue(text(retry).contains("memory budget"), text(retry));
        assertEquals(before + 1, client.count("statement"));
    }

    public static HttpRequest.Builder slowPayment(Client client, String key) {
        StringBuilder json = new StringBuilder("{\"amount\":7,\"currency\":\"eur\",\"memo\":\"");
        while (json.length() < BODY_BYTES - 2) json.append('m');
        json.append("\"}");
        return client.request("/payments").header("Idempotency-Key", key).header("X-Delay-Ms", "1500")
                .header("Content-Type", "application/json").POST(HttpRequest.BodyPublishers.ofString(json.toString()));
    }
}
