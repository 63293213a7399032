package dev.idempotency.e2e.scenarios;

import dev.idempotency.e2e.servers.ServerProcess;
import org.junit.jupiter.api.Test;

import dev.idempotency.store.testing.Await;

import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * The orders service as JAX-RS resources: on top of the shared scenarios, what the resource layer adds — keys
 * required by route template (the refunds route is annotated only on its interface), and the matched route in the
 * agent's diagnostics.
 */
public abstract class JaxrsOrdersScenarios extends OrdersScenarios {

    @Override
    protected ServerProcess configure(ServerProcess server) {
        return server.set("idempotency.required", "POST /refunds/{id}").set("idempotency.log.level", "debug")
                .set("idempotency.max-request-bytes", "64KiB");
    }

    @Test
    public void aRouteThatRequiresAKeyRejectsRequestsWithoutOne() throws Exception {
        long refunds = client.count("refund");
        HttpResponse<byte[]> refused = client.send(client.request("/api/refunds/pay_9").POST(HttpRequest.BodyPublishers.ofString("{}")));
        assertProblem(refused, 400, "key-missing");
        assertEquals(refunds, client.count("refund"));
        HttpResponse<byte[]> unrequired = client.send(client.request("/api/orders/o-9/payments").header("Content-Type", "application/json")
                .POST(HttpRequest.BodyPublishers.ofString("{\"amount\":1}")));
        assertEquals(201, unrequired.statusCode(), "other routes still run without a key");
    }

    @Test
    public void anOversizedBodyWithAKeyIs413() throws Exception {
        long payments = client.count("payment");
        HttpResponse<byte[]> r = client.send(client.request("/api/orders/o-11/payments").header("Idempotency-Key", key())
                .header("Content-Type", "application/json")
                .POST(HttpRequest.BodyPublishers.ofString("{\"amount\":1,\"pad\":\"" + "x".repeat(70 * 1024) + "\"}")));
        assertProblem(r, 413, "request-too-large");
        assertEquals(payments, client.count("payment"));
    }

    @Test
    public void theMatchedRouteAppearsInTheAgentsDiagnostics() throws Exception {
        String key = key();
        assertEquals(201, client.send(client.request("/api/orders/o-10/payments").header("Idempotency-Key", key)
                .header("Content-Type", "application/json").POST(HttpRequest.BodyPublishers.ofString("{\"amount\":1}"))).statusCode());
        String lines = server.agentLines();
        assertTrue(lines.contains("POST /orders/{id}/payments") && lines.contains("[" + key + "]"), lines);
    }

    private HttpRequest.Builder deposit(String key, String token) {
        HttpRequest.Builder r = client.request("/api/vault/deposits").header("Idempotency-Key", key).POST(HttpRequest.BodyPublishers.noBody());
        return token == null ? r : r.header("X-Vault-Token", token);
    }

    @Test
    public void theRuntimesAuthenticationRunsBeforeAnyReplayAndItsPrincipalIsTheScope() throws Exception {
        long deposits = client.count("deposit");
        String key = key();
        HttpResponse<byte[]> alice = client.send(deposit(key, "token-alice"));
        assertEquals(201, alice.statusCode(), new String(alice.body(), StandardCharsets.UTF_8));
        assertReplayOf(alice, client.send(deposit(key, "token-alice")));
        HttpResponse<byte[]> anonymous = client.send(deposit(key, null));
        assertEquals(401, anonymous.statusCode(), "the application's filter refuses it; no replay: " + new String(anonymous.body(), StandardCharsets.UTF_8));
        assertTrue(anonymous.headers().firstValue("Idempotent-Replayed").isEmpty());
        HttpResponse<byte[]> bob = client.send(deposit(key, "token-bob"));
        assertEquals(201, bob.statusCode(), "another principal, another scope: " + new String(bob.body(), StandardCharsets.UTF_8));
        assertTrue(new String(bob.body(), StandardCharsets.UTF_8).contains("\"owner\":\"bob\""));
        assertEquals(deposits + 2, client.count("deposit"), "alice's deposit once, bob's once");
    }

    /** What the jobs resource says of a ticket: none, held or done. */
    protected String jobState(String ticket) {
        try {
            return new String(client.send(client.request("/api/jobs/status?ticket=" + ticket)).body(), StandardCharsets.UTF_8);
        } catch (Exception e) {
            throw new IllegalStateException(e);
        }
    }

    /** False for a container that cannot suspend a request (the JDK HttpServer containers of Jersey and RESTEasy). */
    protected boolean containerSuspendsRequests() {
        return true;
    }

    @Test
    public void aSuspendedResourceWhoseRuntimeTimesOutKeepsItsKeyWhileItsWorkRuns() throws Exception {
        assumeTrue(containerSuspendsRequests(), "this container cannot suspend a request (Jersey's JDK HttpServer container"
                + " answers \"Method suspend is not supported by the container\"; RESTEasy's answers 204 at once while the work goes on)");
        long jobs = client.count("job");
        String key = key();
        String ticket = UUID.randomUUID().toString();
        String path = "/api/jobs?ticket=" + ticket;
        try {
            CompletableFuture<HttpResponse<byte[]>> first = client.sendAsync(client.request(path).header("Idempotency-Key", key)
                    .POST(HttpRequest.BodyPublishers.noBody()));
            Await.until("the job to be held", Duration.ofSeconds(10), () -> jobState(ticket), "held"::equals);
            HttpResponse<byte[]> timedOut = first.get(15, TimeUnit.SECONDS);
            assertEquals(503, timedOut.statusCode(), "the runtime's own timeout answer");
            assertEquals("held", jobState(ticket), "the work still runs");
            assertProblem(client.send(client.request(path).header("Idempotency-Key", key).POST(HttpRequest.BodyPublishers.noBody())),
                    409, "request-in-progress");
            assertEquals(jobs, client.count("job"));
        } finally {
            client.send(client.request("/api/jobs/release?ticket=" + ticket).POST(HttpRequest.BodyPublishers.noBody()));
        }
        Await.until("the job to finish", Duration.ofSeconds(15), () -> jobState(ticket), "done"::equals);
        HttpResponse<byte[]> after = client.send(client.request(path).header("Idempotency-Key", key).POST(HttpRequest.BodyPublishers.noBody()));
        assertEquals(409, after.statusCode(), "the runtime dropped the late result, so the key is never run again: "
                + new String(after.body(), StandardCharsets.UTF_8));
        assertEquals(jobs + 1, client.count("job"), "the job ran exactly once");
    }
}
