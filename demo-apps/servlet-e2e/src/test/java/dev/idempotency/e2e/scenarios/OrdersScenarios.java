package dev.idempotency.e2e.scenarios;

import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.condition.DisabledIf;

import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The orders service (JAX-RS or Spring, one HTTP contract) behind its framework's servlet, on a real server: the same
 * promises as for plain servlets, through Jersey, RESTEasy and Spring MVC.
 */
public abstract class OrdersScenarios extends ServerScenarios {

    @Override
    protected String countersPath() {
        return "/api/counters";
    }

    private HttpRequest.Builder payment(String order, String key, String json) {
        HttpRequest.Builder r = client.request("/api/orders/" + order + "/payments").header("Content-Type", "application/json")
                .POST(HttpRequest.BodyPublishers.ofString(json));
        return key == null ? r : r.header("Idempotency-Key", key);
    }

    @Test
    public void aRetryIsReplayedByteForByteAndTheResourceRunsOnce() throws Exception {
        long before = client.count("payment");
        String key = key();
        HttpResponse<byte[]> first = client.send(payment("o-1", key, "{\"amount\": 1250}"));
        assertEquals(201, first.statusCode(), text(first));
        assertTrue(new String(first.body(), StandardCharsets.UTF_8).contains("€"), text(first));
        HttpResponse<byte[]> retry = client.send(payment("o-1", key, "{\"amount\":1250}"));
        assertReplayOf(first, retry);
        assertEquals(before + 1, client.count("payment"));
    }

    @Test
    public void concurrentDuplicatesGetConflictsAndTheResourceRunsOnce() throws Exception {
        long before = client.count("payment");
        String key = key();
        sendConcurrentDuplicates(20, 201, () -> payment("o-2", key, "{\"amount\":99}").header("X-Delay-Ms", "1500"));
        assertEquals(before + 1, client.count("payment"));
    }

    @Test
    public void theSameKeyOnAnotherOrderIsAMismatch() throws Exception {
        String key = key();
        assertEquals(201, client.send(payment("o-3", key, "{\"amount\":10}")).statusCode());
        long before = client.count("payment");
        assertProblem(client.send(payment("o-4", key, "{\"amount\":10}")), 422, "key-reused");
        assertProblem(client.send(payment("o-3", key, "{\"amount\":11}")), 422, "key-reused");
        assertEquals(before, client.count("payment"));
    }

    @Test
    public void aMalformedKeyIs400() throws Exception {
        long before = client.count("payment");
        assertProblem(client.send(payment("o-5", "\"unterminated", "{\"amount\":1}")), 400, "key-invalid");
        assertProblem(client.send(payment("o-5", "k".repeat(256), "{\"amount\":1}")), 400, "key-invalid");
        assertEquals(before, client.count("payment"));
    }

    @Test
    public void tenantsNeverSeeEachOthersResponses() throws Exception {
        String key = key();
        HttpResponse<byte[]> alice = client.send(payment("o-6", key, "{\"amount\":500}").header("Authorization", "Bearer alice"));
        HttpResponse<byte[]> bob = client.send(payment("o-6", key, "{\"amount\":500}").header("Authorization", "Bearer bob"));
        assertEquals(201, alice.statusCode());
        assertEquals(201, bob.statusCode());
        assertFalse(bob.headers().firstValue("Idempotent-Replayed").isPresent(), "bob's request is his own");
        assertNotEquals(text(alice), text(bob));
        assertReplayOf(alice, client.send(payment("o-6", key, "{\"amount\":500}").header("Authorization", "Bearer alice")));
    }

    @Test
    public void serverErrorsAreNotKept() throws Exception {
        String key = key();
        long before = client.count("failed-payment");
        for (int i = 0; i < 2; i++) {
            HttpResponse<byte[]> r = client.send(client.request("/api/orders/o-7/payments?fail=true").header("Idempotency-Key", key)
                    .header("Content-Type", "application/json").POST(HttpRequest.BodyPublishers.ofString("{\"amount\":1}")));
            assertEquals(500, r.statusCode(), text(r));
            assertFalse(r.headers().firstValue("Idempotent-Replayed").isPresent());
        }
        assertEquals(before + 2, client.count("failed-payment"), "a 5xx releases the key: the retry ran again");
    }

    @Test
    public void aResourceAnnotatedThroughItsInterfaceIsProtected() throws Exception {
        String key = key();
        HttpResponse<byte[]> first = client.send(client.request("/api/refunds/pay_1").header("Idempotency-Key", key)
                .POST(HttpRequest.BodyPublishers.ofString("{}")));
        assertEquals(200, first.statusCode(), text(first));
        long refunds = client.count("refund");
        assertReplayOf(first, client.send(client.request("/api/refunds/pay_1").header("Idempotency-Key", key)
                .POST(HttpRequest.BodyPublishers.ofString("{}"))));
        assertEquals(refunds, client.count("refund"));
    }

    @Test
    @Order(Integer.MAX_VALUE)
    @DisabledIf("restartProvenByAnotherRow")
    public void aReplaySurvivesAServerRestart() throws Exception {
        String key = key();
        HttpResponse<byte[]> first = client.send(payment("o-8", key, "{\"amount\":4242}"));
        assertEquals(201, first.statusCode());
        long payments = client.count("payment");
        server.stop();
        server.start();
        assertReplayOf(first, client.send(payment("o-8", key, "{\"amount\":4242}")));
        assertEquals(payments, client.count("payment"));
    }
}
