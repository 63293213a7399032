package dev.idempotency.e2e;

import org.junit.jupiter.api.Test;

import java.net.http.HttpRequest;
import java.net.http.HttpResponse;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The orders service as JAX-RS resources: on top of the shared scenarios, what the resource layer adds — keys
 * required by route template (the refunds route is annotated only on its interface), and the matched route in the
 * agent's diagnostics.
 */
abstract class JaxrsOrdersScenarios extends OrdersScenarios {

    @Override
    protected ServerProcess configure(ServerProcess server) {
        return server.set("idempotency.required", "POST /refunds/{id}").set("idempotency.log.level", "debug")
                .set("idempotency.max-request-bytes", "64KiB");
    }

    @Test
    void aRouteThatRequiresAKeyRejectsRequestsWithoutOne() throws Exception {
        long refunds = client.count("refund");
        HttpResponse<byte[]> refused = client.send(client.request("/api/refunds/pay_9").POST(HttpRequest.BodyPublishers.ofString("{}")));
        assertProblem(refused, 400, "key-missing");
        assertEquals(refunds, client.count("refund"));
        HttpResponse<byte[]> unrequired = client.send(client.request("/api/orders/o-9/payments").header("Content-Type", "application/json")
                .POST(HttpRequest.BodyPublishers.ofString("{\"amount\":1}")));
        assertEquals(201, unrequired.statusCode(), "other routes still run without a key");
    }

    @Test
    void anOversizedBodyWithAKeyIs413() throws Exception {
        long payments = client.count("payment");
        HttpResponse<byte[]> r = client.send(client.request("/api/orders/o-11/payments").header("Idempotency-Key", key())
                .header("Content-Type", "application/json")
                .POST(HttpRequest.BodyPublishers.ofString("{\"amount\":1,\"pad\":\"" + "x".repeat(70 * 1024) + "\"}")));
        assertProblem(r, 413, "request-too-large");
        assertEquals(payments, client.count("payment"));
    }

    @Test
    void theMatchedRouteAppearsInTheAgentsDiagnostics() throws Exception {
        String key = key();
        assertEquals(201, client.send(client.request("/api/orders/o-10/payments").header("Idempotency-Key", key)
                .header("Content-Type", "application/json").POST(HttpRequest.BodyPublishers.ofString("{\"amount\":1}"))).statusCode());
        String lines = server.agentLines();
        assertTrue(lines.contains("POST /orders/{id}/payments") && lines.contains("[" + key + "]"), lines);
    }
}
