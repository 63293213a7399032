package dev.idempotency.e2e.scenarios;

import dev.idempotency.e2e.support.Client;
import dev.idempotency.e2e.servers.ServerProcess;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.condition.DisabledIf;

import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * What the agent promises, asked of a real server over real HTTP. Each subclass names a server (and store); the
 * scenarios are the same everywhere. The demo application counts its own side effects, so "ran exactly once" is read
 * from the application, not from the agent.
 */
public abstract class PaymentsScenarios extends ServerScenarios implements TransparencyChecks, SessionChecks {

    @Override
    public Client client() {
        return client;
    }

    /** False where the server holds such a request itself (seen: no agent log line for it, the client waits). */
    protected boolean dispatchesLengthsBeyondTwoGigabytes() {
        return true;
    }

    @Override
    protected ServerProcess configure(ServerProcess server) {
        return server.set("idempotency.required", "/shop/refunds").set("idempotency.max-request-bytes", "64KiB")
                .set("idempotency.max-response-bytes", "256KiB");
    }

    @Test
    public void aRetryIsReplayedByteForByteAndTheApplicationRunsOnce() throws Exception {
        long before = client.count("charge");
        String key = key();
        HttpResponse<byte[]> first = client.postJson("/payments", key, "{\"amount\": 1250, \"currency\": \"eur\"}");
        assertEquals(201, first.statusCode(), text(first));
        assertFalse(first.headers().firstValue("Idempotent-Replayed").isPresent());

        // The same request, with its JSON keys in another order and other whitespace, and the key as an sf-string.
        HttpResponse<byte[]> retry = client.postJson("/payments", "\"" + key + "\"", "{\"currency\":\"eur\",\"amount\":1250}");
        assertReplayOf(first, retry);
        assertTrue(text(retry).contains("€"), "the writer's UTF-8 survives: " + text(retry));
        assertEquals(before + 1, client.count("charge"));
    }

    @Test
    public void concurrentDuplicatesGetConflictsAndTheApplicationRunsOnce() throws Exception {
        long before = client.count("charge");
        String key = key();
        sendConcurrentDuplicates(24, 201, () -> client.request("/payments").header("Idempotency-Key", key).header("X-Delay-Ms", "1500")
                .header("Content-Type", "application/json").POST(HttpRequest.BodyPublishers.ofString("{\"amount\":99}")));
        assertEquals(before + 1, client.count("charge"));
    }

    @Test
    public void aKeyReusedWithAnotherPayloadIs422() throws Exception {
        String key = key();
        assertEquals(201, client.postJson("/payments", key, "{\"amount\":10}").statusCode());
        long before = client.count("charge");
        assertProblem(client.postJson("/payments", key, "{\"amount\":11}"), 422, "key-reused");
        assertProblem(client.send(client.request("/payments?coupon=x").header("Idempotency-Key", key)
                .header("Content-Type", "application/json").POST(HttpRequest.BodyPublishers.ofString("{\"amount\":10}"))), 422, "key-reused");
        assertEquals(before, client.count("charge"));
    }

    /** True for a container that answers 400 itself to a header value with a non-ASCII byte (Payara 6's Grizzly). */
    protected boolean containerRefusesNonAsciiHeaderValues() {
        return false;
    }

    @Test
    public void malformedKeysAre400AndTheApplicationDoesNotRun() throws Exception {
        long before = client.count("charge");
        String tooLong = "k".repeat(256);
        for (String header : new String[] {"Idempotency-Key: \r\n", "Idempotency-Key: " + tooLong + "\r\n",
                "Idempotency-Key: \"unterminated\r\n", "Idempotency-Key: \"a\"b\r\n", "Idempotency-Key: caf\u00e9\r\n",
                "Idempotency-Key: one\r\nIdempotency-Key: two\r\n"}) {
            byte[] body = "{\"amount\":5}".getBytes(StandardCharsets.UTF_8);
            Client.RawResponse r = Client.raw(server.port, "POST /shop/payments HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n"
                    + "Content-Type: application/json\r\nContent-Length: " + body.length + "\r\n" + header + "\r\n", body);
            assertEquals(400, r.status(), header + " -> " + r.head() + "\n" + r.body());
            if (header.contains("\u00e9") && containerRefusesNonAsciiHeaderValues()) {
                assertFalse(r.body().contains(PROBLEM), "the container's own refusal: " + r.body());
                continue;
            }
            assertTrue(r.body().contains(PROBLEM + "key-invalid"), header + " -> " + r.body());
        }
        assertEquals(before, client.count("charge"));
    }

    @Test
    public void aRequiredKeyThatIsMissingIs400() throws Exception {
        long before = client.count("refund");
        HttpResponse<byte[]> r = client.send(client.request("/refunds").POST(HttpRequest.BodyPublishers.ofString("")));
        assertProblem(r, 400, "key-missing");
        assertEquals(before, client.count("refund"));
    }

    @Test
    public void aForwardInsideAProtectedRequestIsHandledOnce() throws Exception {
        String key = key();
        HttpResponse<byte[]> first = client.send(client.request("/refunds").header("Idempotency-Key", key).POST(HttpRequest.BodyPublishers.ofString("")));
        assertEquals(200, first.statusCode(), text(first));
        long refunds = client.count("refund");
        HttpResponse<byte[]> retry = client.send(client.request("/refunds").header("Idempotency-Key", key).POST(HttpRequest.BodyPublishers.ofString("")));
        assertEquals("true", retry.headers().firstValue("Idempotent-Replayed").orElse(null));
        assertArrayEquals(first.body(), retry.body());
        assertEquals(refunds, client.count("refund"));
    }

    @Test
    public void anOversizedBodyWithAKeyIs413() throws Exception {
        long before = client.count("charge");
        String padding = "x".repeat(70 * 1024);
        assertProblem(client.postJson("/payments", key(), "{\"amount\":1,\"pad\":\"" + padding + "\"}"), 413, "request-too-large");
        assertEquals(before, client.count("charge"));
    }

    /** Above Integer.MAX_VALUE getContentLength() says -1; the declared length must still refuse the body unread. */
    @Test
    public void aDeclaredLengthBeyondTwoGigabytesIs413BeforeTheBodyIsSent() throws Exception {
        org.junit.jupiter.api.Assumptions.assumeTrue(dispatchesLengthsBeyondTwoGigabytes(),
                "this server holds a request declaring 2 GiB or more before any filter or servlet sees it");
        long before = client.count("charge");
        // no body follows: were the agent to read it, the server would wait and the socket's timeout would end the test
        Client.RawResponse r = Client.raw(server.port, "POST /shop/payments HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n"
                + "Content-Type: application/json\r\nContent-Length: 3000000000\r\nExpect: 100-continue\r\n"
                + "Idempotency-Key: " + key() + "\r\n\r\n", new byte[0]);
        assertEquals(413, r.status(), r.head() + "\n" + r.body());
        assertTrue(r.body().contains(PROBLEM + "request-too-large"), r.body());
        assertEquals(before, client.count("charge"));
    }

    @Test
    public void formPostsKeepTheirParametersAndReplay() throws Exception {
        String key = key();
        HttpRequest.Builder form = client.request("/payments").header("Idempotency-Key", key)
                .header("Content-Type", "application/x-www-form-urlencoded").POST(HttpRequest.BodyPublishers.ofString("amount=321&currency=usd"));
        HttpResponse<byte[]> first = client.send(form);
        assertEquals(201, first.statusCode(), text(first));
        assertTrue(text(first).contains("\"amount\":321") && text(first).contains("usd"), "the application saw the form: " + text(first));
        long charges = client.count("charge");
        HttpResponse<byte[]> reordered = client.send(client.request("/payments").header("Idempotency-Key", key)
                .header("Content-Type", "application/x-www-form-urlencoded").POST(HttpRequest.BodyPublishers.ofString("currency=usd&amount=321")));
        assertEquals("true", reordered.headers().firstValue("Idempotent-Replayed").orElse(null));
        assertArrayEquals(first.body(), reordered.body());
        assertProblem(client.send(client.request("/payments").header("Idempotency-Key", key)
                .header("Content-Type", "application/x-www-form-urlencoded").POST(HttpRequest.BodyPublishers.ofString("currency=usd&amount=322"))), 422, "key-reused");
        assertEquals(charges, client.count("charge"));
    }

    @Test
    public void streamedBinaryResponsesReplayByteForByte() throws Exception {
        String key = key();
        HttpRequest.Builder request = client.request("/statements?size=100000").header("Idempotency-Key", key).POST(HttpRequest.BodyPublishers.noBody());
        HttpResponse<byte[]> first = client.send(request);
        assertEquals(200, first.statusCode());
        assertEquals(100_000, first.body().length);
        long statements = client.count("statement");
        HttpResponse<byte[]> retry = client.send(client.request("/statements?size=100000").header("Idempotency-Key", key).POST(HttpRequest.BodyPublishers.noBody()));
        assertArrayEquals(first.body(), retry.body());
        assertEquals(first.headers().firstValue("X-Statement-Id"), retry.headers().firstValue("X-Statement-Id"));
        assertEquals(statements, client.count("statement"));
    }

    @Test
    public void asynchronousResponsesAreCapturedAndReplayed() throws Exception {
        String key = key();
        HttpResponse<byte[]> first = client.send(client.request("/async-payments?amount=77").header("Idempotency-Key", key).POST(HttpRequest.BodyPublishers.noBody()));
        assertEquals(202, first.statusCode(), text(first));
        long asyncCharges = client.count("async-charge");
        HttpResponse<byte[]> retry = client.send(client.request("/async-payments?amount=77").header("Idempotency-Key", key).POST(HttpRequest.BodyPublishers.noBody()));
        assertEquals(202, retry.statusCode());
        assertEquals("true", retry.headers().firstValue("Idempotent-Replayed").orElse(null));
        assertArrayEquals(first.body(), retry.body());
        assertEquals(asyncCharges, client.count("async-charge"));
    }

    @Test
    public void aResponseTooLargeToKeepStreamsAndIsNeverRunAgain() throws Exception {
        String key = key();
        int size = 600 * 1024;
        HttpResponse<byte[]> first = client.send(client.request("/statements?size=" + size).header("Idempotency-Key", key).POST(HttpRequest.BodyPublishers.noBody()));
        assertEquals(200, first.statusCode());
        assertEquals(size, first.body().length);
        long statements = client.count("statement");
        HttpResponse<byte[]> retry = client.send(client.request("/statements?size=" + size).header("Idempotency-Key", key).POST(HttpRequest.BodyPublishers.noBody()));
        assertProblem(retry, 409, "response-not-kept");
        assertEquals(statements, client.count("statement"));
    }

    @Test
    public void clientErrorsAreKeptAndServerErrorsAreNot() throws Exception {
        String key = key();
        HttpResponse<byte[]> badRequest = client.postJson("/payments", key, "{\"currency\":\"eur\"}");
        assertEquals(400, badRequest.statusCode());
        HttpResponse<byte[]> again = client.postJson("/payments", key, "{\"currency\":\"eur\"}");
        assertEquals(400, again.statusCode());
        assertEquals("true", again.headers().firstValue("Idempotent-Replayed").orElse(null), "a 4xx is kept");
        assertArrayEquals(badRequest.body(), again.body());

        String failing = key();
        HttpResponse<byte[]> serverError = client.send(client.request("/payments?fail=true").header("Idempotency-Key", failing)
                .header("Content-Type", "application/json").POST(HttpRequest.BodyPublishers.ofString("{\"amount\":1}")));
        assertEquals(500, serverError.statusCode());
        HttpResponse<byte[]> rerun = client.send(client.request("/payments?fail=true").header("Idempotency-Key", failing)
                .header("Content-Type", "application/json").POST(HttpRequest.BodyPublishers.ofString("{\"amount\":1}")));
        assertEquals(500, rerun.statusCode());
        assertFalse(rerun.headers().firstValue("Idempotent-Replayed").isPresent(), "a 5xx is not kept: the application ran again");
    }

    @Test
    public void requestsOtherThanPostAndPatchAreUntouched() throws Exception {
        String key = key();
        long puts = client.count("put");
        for (int i = 0; i < 2; i++) {
            HttpResponse<byte[]> put = client.send(client.request("/payments").header("Idempotency-Key", key).PUT(HttpRequest.BodyPublishers.ofString("x")));
            assertEquals(200, put.statusCode());
            assertFalse(put.headers().firstValue("Idempotent-Replayed").isPresent());
        }
        assertEquals(puts + 2, client.count("put"));
        HttpResponse<byte[]> get = client.send(client.request("/payments").header("Idempotency-Key", key));
        assertEquals(200, get.statusCode());
        assertTrue(text(get).contains("charges"), text(get));
        long charges = client.count("charge");
        HttpResponse<byte[]> noKey = client.postJson("/payments", null, "{\"amount\":3}");
        assertEquals(201, noKey.statusCode());
        assertEquals(charges + 1, client.count("charge"), "a POST without a key runs as it always did");
    }

    @Test
    public void tenantsNeverSeeEachOthersResponses() throws Exception {
        String key = key();
        String json = "{\"amount\":500}";
        HttpResponse<byte[]> alice = client.send(client.request("/payments").header("Idempotency-Key", key).header("Authorization", "Bearer alice")
                .header("Content-Type", "application/json").POST(HttpRequest.BodyPublishers.ofString(json)));
        HttpResponse<byte[]> bob = client.send(client.request("/payments").header("Idempotency-Key", key).header("Authorization", "Bearer bob")
                .header("Content-Type", "application/json").POST(HttpRequest.BodyPublishers.ofString(json)));
        assertEquals(201, alice.statusCode());
        assertEquals(201, bob.statusCode());
        assertFalse(bob.headers().firstValue("Idempotent-Replayed").isPresent(), "bob's request is his own, not alice's replay");
        assertNotEquals(text(alice), text(bob));
        HttpResponse<byte[]> aliceAgain = client.send(client.request("/payments").header("Idempotency-Key", key).header("Authorization", "Bearer alice")
                .header("Content-Type", "application/json").POST(HttpRequest.BodyPublishers.ofString(json)));
        assertArrayEquals(alice.body(), aliceAgain.body());
    }

    /** True for a Servlet 6.1 container, whose sendRedirect also takes a status. */
    protected boolean servlet61() {
        return false;
    }

    private HttpRequest.Builder checkout(String key, String redirectStatus) {
        HttpRequest.Builder r = client.request("/checkout").header("Idempotency-Key", key).header("Content-Type", "application/json")
                .POST(HttpRequest.BodyPublishers.ofString("{\"cart\":7}"));
        return redirectStatus == null ? r : r.header("X-Redirect-Status", redirectStatus);
    }

    @Test
    public void aPostRedirectGetIsReplayedAndTheApplicationRunsOnce() throws Exception {
        long before = client.count("checkout");
        String key = key();
        HttpResponse<byte[]> first = client.send(checkout(key, null));
        assertEquals(302, first.statusCode(), text(first));
        String location = first.headers().firstValue("Location").orElse("");
        // the container makes the Location as it does without a key: as given, from the server's root or absolute
        assertTrue(location.matches("((https?://[^/]+)?/shop/)?receipts/\\d+"), "the receipt: " + location);
        assertReplayOf(first, client.send(checkout(key, null)));
        assertEquals(before + 1, client.count("checkout"));
    }

    @Test
    public void aServlet61RedirectWithItsOwnStatusIsKeptWhereTheContainerOffersIt() throws Exception {
        long before = client.count("checkout");
        String key = key();
        HttpResponse<byte[]> first = client.send(checkout(key, "303"));
        assertEquals(servlet61() ? 303 : 302, first.statusCode(), "303 through sendRedirect(String, int) on Servlet 6.1: " + text(first));
        assertTrue(first.headers().firstValue("Location").orElse("").matches("((https?://[^/]+)?/shop/)?receipts/\\d+"));
        assertReplayOf(first, client.send(checkout(key, "303")));
        assertEquals(before + 1, client.count("checkout"));
    }

    /** What an operator does once the server has restarted, before clients come back; nothing by default. */
    protected void afterRestart() throws Exception {
    }

    @Test
    @Order(Integer.MAX_VALUE)
    @DisabledIf("restartProvenByAnotherRow")
    public void aReplaySurvivesAServerRestart() throws Exception {
        String key = key();
        HttpResponse<byte[]> first = client.postJson("/payments", key, "{\"amount\":4242}");
        assertEquals(201, first.statusCode());
        long charges = client.count("charge");
        server.stop();
        server.start();
        afterRestart();
        HttpResponse<byte[]> retry = client.postJson("/payments", key, "{\"amount\":4242}");
        assertEquals("true", retry.headers().firstValue("Idempotent-Replayed").orElse(null), text(retry));
        assertArrayEquals(first.body(), retry.body());
        assertEquals(charges, client.count("charge"));
    }
}
