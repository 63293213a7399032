package dev.idempotency.e2e.scenarios;

import dev.idempotency.e2e.servers.ServerProcess;
import dev.idempotency.store.testing.Await;
import org.junit.jupiter.api.Test;

import java.io.ByteArrayOutputStream;
import java.net.URLEncoder;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.time.Duration;
import java.util.HexFormat;
import java.util.Random;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The agent's promises for a legacy application that was never written for them (the "legacy" shop WAR): filters
 * that read the form before any servlet, a plain {@code Servlet}, an action framework that is a filter, multipart
 * uploads, asynchronous work that outlives its request, a rate limiter's 429, and its own authentication (a session
 * cookie, API keys) done in filters. Every scenario reads the application's own counters. Each subclass names a
 * server (and store); the scenarios are the same everywhere.
 */
public abstract class LegacyScenarios extends ServerScenarios {
    public static final String FORM = "application/x-www-form-urlencoded";
    /** The shop's action framework: a filter that answers /actions/* itself and never calls the chain. */
    public static final String ACTION_FILTER = "dev.idempotency.demo.legacy.ActionFilter";
    public static final String NOTE = "caf\u00e9 \u2013 \u00fc\u00f1\u00ee\u00e7\u00f8d\u00e9 \u20ac \u65e5\u672c";

    @Override
    protected ServerProcess configure(ServerProcess server) {
        return server.set("idempotency.application-filters", ACTION_FILTER);
    }

    // --- 1. a filter reads the form before any servlet --------------------------------------------------------------

    @Test
    public void aFormReadByAFilterFirstStillReachesTheServletReplaysAndIsFingerprinted() throws Exception {
        long before = client.count("transfers");
        String key = key();
        String body = "from=ACC-1&to=ACC-2&amount=125&item=A&qty=1&item=B&qty=2&note=" + enc(NOTE);
        HttpResponse<byte[]> first = form("/transfers", key, body);
        assertEquals(201, first.statusCode(), text(first));
        assertFalse(first.headers().firstValue("Idempotent-Replayed").isPresent());
        String seen = text(first);
        assertTrue(seen.contains("\"from\":\"ACC-1\",\"to\":\"ACC-2\",\"amount\":\"125\",\"items\":[\"A\",\"B\"],\"qtys\":[\"1\",\"2\"],"
                + "\"note\":\"" + NOTE + "\"}"), "the servlet saw every field, in order, the note decoded as UTF-8: " + seen);
        assertEquals(before + 1, client.count("transfers"));

        HttpResponse<byte[]> retry = form("/transfers", key, body);
        assertReplayOf(first, retry);
        assertEquals(before + 1, client.count("transfers"), "a retry must not run the application again");

        HttpResponse<byte[]> changed = form("/transfers", key, body.replace("amount=125", "amount=126"));
        assertProblem(changed, 422, "key-reused");
        assertEquals(before + 1, client.count("transfers"));
    }

    // --- 2. repeated fields keep their order; different names do not ------------------------------------------------

    @Test
    public void reorderedRepeatedFieldsAreAnotherRequestButReorderedDistinctFieldsAreTheSame() throws Exception {
        long before = client.count("transfers");
        String key = key();
        HttpResponse<byte[]> first = form("/transfers", key, "from=X&to=Y&amount=5&item=A&qty=1&item=B&qty=2");
        assertEquals(201, first.statusCode(), text(first));
        assertTrue(text(first).contains("\"items\":[\"A\",\"B\"],\"qtys\":[\"1\",\"2\"]"), text(first));
        HttpResponse<byte[]> reordered = form("/transfers", key, "from=X&to=Y&amount=5&item=B&qty=1&item=A&qty=2");
        assertProblem(reordered, 422, "key-reused");
        assertEquals(before + 1, client.count("transfers"), "the reordered items are another transfer, and it must not run");

        String other = key();
        HttpResponse<byte[]> fromTo = form("/transfers", other, "from=P&to=Q&amount=7");
        assertEquals(201, fromTo.statusCode(), text(fromTo));
        HttpResponse<byte[]> toFrom = form("/transfers", other, "to=Q&from=P&amount=7");
        assertReplayOf(fromTo, toFrom);
        assertEquals(before + 2, client.count("transfers"));
    }

    // --- 3. repeated query parameters keep their order ---------------------------------------------------------------

    @Test
    public void reorderedRepeatedQueryParametersAreAnotherRequest() throws Exception {
        long before = client.count("searches");
        String key = key();
        HttpResponse<byte[]> first = client.send(client.request("/searches?tag=x&tag=y").header("Idempotency-Key", key)
                .POST(HttpRequest.BodyPublishers.noBody()));
        assertEquals(201, first.statusCode(), text(first));
        assertTrue(text(first).contains("\"tags\":[\"x\",\"y\"]"), text(first));
        HttpResponse<byte[]> swapped = client.send(client.request("/searches?tag=y&tag=x").header("Idempotency-Key", key)
                .POST(HttpRequest.BodyPublishers.noBody()));
        assertProblem(swapped, 422, "key-reused");
        assertEquals(before + 1, client.count("searches"));
    }

    // --- 4. path parameters are not part of the request's identity ---------------------------------------------------

    @Test
    public void aPathParameterDoesNotMakeARetryAnotherRequest() throws Exception {
        long before = client.count("transfers");
        String key = key();
        String body = "from=J&to=K&amount=44";
        HttpResponse<byte[]> first = client.send(client.request("/transfers;jsessionid=ABC").header("Idempotency-Key", key)
                .header("Content-Type", FORM).POST(HttpRequest.BodyPublishers.ofString(body)));
        assertEquals(201, first.statusCode(), text(first));
        HttpResponse<byte[]> retry = form("/transfers", key, body);
        assertReplayOf(first, retry);
        assertEquals(before + 1, client.count("transfers"));
    }

    // --- 5. a Servlet that is not an HttpServlet ----------------------------------------------------------------------

    @Test
    public void aMethodOverrideByAFilterIsStillDecided() throws Exception {
        long before = client.count("cancellations");
        String key = key();
        String body = "_method=DELETE&subscription=SUB-7";
        HttpResponse<byte[]> first = form("/subscriptions", key, body);
        assertEquals(200, first.statusCode(), text(first));
        assertTrue(text(first).contains("\"cancelled\":\"SUB-7\""), text(first));
        assertReplayOf(first, form("/subscriptions", key, body));
        assertEquals(before + 1, client.count("cancellations"), "a POST the servlet sees as DELETE must not run twice");
    }

    @Test
    public void aPlainServletIsProtected() throws Exception {
        long before = client.count("plain");
        String key = key();
        String body = "from=G&to=H&amount=9&item=Z&qty=3";
        HttpResponse<byte[]> first = form("/plain-transfers", key, body);
        assertEquals(201, first.statusCode(), text(first));
        assertTrue(text(first).contains("\"items\":[\"Z\"]"), text(first));
        HttpResponse<byte[]> retry = form("/plain-transfers", key, body);
        assertReplayOf(first, retry);
        assertEquals(before + 1, client.count("plain"));
    }

    // --- 6. an application that is a filter ---------------------------------------------------------------------------

    @Test
    public void aFilterThatIsTheApplicationIsProtected() throws Exception {
        long before = client.count("actions");
        String key = key();
        HttpResponse<byte[]> first = form("/actions/pay", key, "amount=31");
        assertEquals(201, first.statusCode(), text(first));
        assertTrue(text(first).contains("\"amount\":\"31\""), text(first));
        HttpResponse<byte[]> retry = form("/actions/pay", key, "amount=31");
        assertReplayOf(first, retry);
        assertEquals(before + 1, client.count("actions"));
    }

    // --- 7. multipart uploads -----------------------------------------------------------------------------------------

    @Test
    public void aMultipartUploadReachesTheServletReplaysAndIsFingerprinted() throws Exception {
        long before = client.count("uploads");
        String key = key();
        byte[] file = new byte[5000];
        new Random().nextBytes(file);
        String boundary = "----legacy" + UUID.randomUUID().toString().replace("-", "");
        byte[] description = "invoice scan \u2116 7".getBytes(StandardCharsets.UTF_8);
        HttpResponse<byte[]> first = upload(key, boundary, description, file);
        assertEquals(201, first.statusCode(), text(first));
        String seen = text(first);
        assertTrue(seen.contains("{\"name\":\"description\",\"filename\":null,\"contentType\":\"text/plain; charset=UTF-8\",\"size\":"
                + description.length + ",\"sha256\":\"" + sha256(description) + "\"}"), "the text part: " + seen);
        assertTrue(seen.contains("{\"name\":\"file\",\"filename\":\"scan.bin\",\"contentType\":\"application/octet-stream\",\"size\":"
                + file.length + ",\"sha256\":\"" + sha256(file) + "\"}"), "the file part: " + seen);
        assertEquals(before + 1, client.count("uploads"));

        HttpResponse<byte[]> retry = upload(key, boundary, description, file);
        assertReplayOf(first, retry);
        assertEquals(before + 1, client.count("uploads"));

        byte[] changed = file.clone();
        changed[2500] ^= 1;
        assertProblem(upload(key, boundary, description, changed), 422, "key-reused");
        assertEquals(before + 1, client.count("uploads"));
    }

    // --- 8. asynchronous work that outlives its request --------------------------------------------------------------

    @Test
    public void asyncWorkThatOutlivesItsTimeoutRunsOnceAndItsLateResultIsReplayed() throws Exception {
        long before = client.count("slow");
        String key = key();
        String ticket = UUID.randomUUID().toString();
        String path = "/slow-async?ticket=" + ticket;
        try {
            CompletableFuture<HttpResponse<byte[]>> first = client.sendAsync(client.request(path).header("Idempotency-Key", key)
                    .POST(HttpRequest.BodyPublishers.noBody()));
            Await.until("the worker to be held", Duration.ofSeconds(10), () -> state(ticket), "held"::equals);
            String firstAnswer;
            try {
                // The container gives up on the request after 1 s; what it answers is its business.
                HttpResponse<byte[]> r = first.get(5, TimeUnit.SECONDS);
                firstAnswer = r.statusCode() + " " + text(r);
            } catch (TimeoutException stillWaiting) {
                firstAnswer = "(no answer yet)";
            }
            assertEquals("held", state(ticket), "the worker is still held; the first client got " + firstAnswer);
            for (int i = 0; i < 2; i++) {
                HttpResponse<byte[]> retry = client.send(client.request(path).header("Idempotency-Key", key).POST(HttpRequest.BodyPublishers.noBody()));
                assertProblem(retry, 409, "request-in-progress");
                assertTrue(Integer.parseInt(retry.headers().firstValue("Retry-After").orElseThrow()) >= 1, "Retry-After");
            }
            assertEquals(before, client.count("slow"), "the work has not happened yet, and nothing ran it a second time");
        } finally {
            release(ticket);
        }
        Await.until("the worker to finish", Duration.ofSeconds(15), () -> state(ticket), "done"::equals);
        HttpResponse<byte[]> late = Await.until("the late result to be recorded", Duration.ofSeconds(15), () -> {
            try {
                return client.send(client.request(path).header("Idempotency-Key", key).POST(HttpRequest.BodyPublishers.noBody()));
            } catch (Exception e) {
                throw new IllegalStateException(e);
            }
        }, r -> r.statusCode() != 409);
        assertEquals(201, late.statusCode(), text(late));
        assertEquals("true", late.headers().firstValue("Idempotent-Replayed").orElse(null), text(late));
        assertTrue(text(late).contains("\"ticket\":\"" + ticket + "\""), "the worker's own body: " + text(late));
        assertEquals(before + 1, client.count("slow"), "the slow work ran exactly once");
        HttpResponse<byte[]> again = client.send(client.request(path).header("Idempotency-Key", key).POST(HttpRequest.BodyPublishers.noBody()));
        assertArrayEquals(late.body(), again.body());
        assertEquals(before + 1, client.count("slow"));
    }

    // --- 9. a 429 is an invitation to retry, not an outcome -----------------------------------------------------------

    @Test
    public void a429IsNotKeptAndTheRetryRunsTheApplication() throws Exception {
        long attempts = client.count("limited-attempts");
        long successes = client.count("limited-success");
        String key = key();
        String body = "account=acc-" + UUID.randomUUID();
        HttpResponse<byte[]> limited = form("/limited", key, body);
        assertEquals(429, limited.statusCode(), text(limited));
        assertEquals("1", limited.headers().firstValue("Retry-After").orElse(null));

        HttpResponse<byte[]> accepted = form("/limited", key, body);
        assertEquals(201, accepted.statusCode(), "the retry after a 429 must run the application: " + text(accepted));
        assertFalse(accepted.headers().firstValue("Idempotent-Replayed").isPresent());
        assertEquals(attempts + 2, client.count("limited-attempts"));
        assertEquals(successes + 1, client.count("limited-success"));

        HttpResponse<byte[]> replay = form("/limited", key, body);
        assertReplayOf(accepted, replay);
        assertEquals(attempts + 2, client.count("limited-attempts"));
        assertEquals(successes + 1, client.count("limited-success"));
    }

    // --- 10. a form in a charset nobody knows -------------------------------------------------------------------------

    @Test
    public void aFormInAnUnknownCharsetIsRefusedAndNeverRuns() throws Exception {
        long before = client.count("transfers");
        String key = key();
        for (int attempt = 1; attempt <= 2; attempt++) {
            HttpResponse<byte[]> r = client.send(client.request("/transfers").header("Idempotency-Key", key)
                    .header("Content-Type", FORM + "; charset=x-no-such-charset").POST(HttpRequest.BodyPublishers.ofString("from=a&to=b&amount=1")));
            assertEquals(400, r.statusCode(), "attempt " + attempt + ": " + text(r));
            assertEquals("application/problem+json", r.headers().firstValue("Content-Type").orElse(""), text(r));
            assertTrue(text(r).contains("\"type\":\"" + PROBLEM), text(r));
            assertEquals(before, client.count("transfers"), "attempt " + attempt + " must not run the application");
        }
    }

    // --- 11. tenants by the application's own session cookie ---------------------------------------------------------

    @Test
    public void usersLoggedInByTheApplicationsSessionCookieHaveTheirOwnKeys() throws Exception {
        long before = client.count("orders");
        String alice = "alice-" + UUID.randomUUID();
        String bob = "bob-" + UUID.randomUUID();
        String aliceCookie = login(alice);
        String bobCookie = login(bob);
        String key = key();
        HttpResponse<byte[]> aliceOrder = order(aliceCookie, key);
        HttpResponse<byte[]> bobOrder = order(bobCookie, key);
        assertEquals(201, aliceOrder.statusCode(), text(aliceOrder));
        assertEquals(201, bobOrder.statusCode(), text(bobOrder));
        assertTrue(text(aliceOrder).contains("\"user\":\"" + alice + "\""), text(aliceOrder));
        assertTrue(text(bobOrder).contains("\"user\":\"" + bob + "\""), "bob gets his own order, not alice's: " + text(bobOrder));
        assertFalse(bobOrder.headers().firstValue("Idempotent-Replayed").isPresent());
        assertEquals(before + 2, client.count("orders"));
        assertReplayOf(aliceOrder, order(aliceCookie, key));
        assertReplayOf(bobOrder, order(bobCookie, key));
        assertEquals(before + 2, client.count("orders"));
    }

    // --- 12. tenants by API key; no key, no replay --------------------------------------------------------------------

    @Test
    public void apiClientsHaveTheirOwnKeysAndAnUnauthenticatedRequestNeverGetsAReplay() throws Exception {
        long before = client.count("charges");
        String key = key();
        HttpResponse<byte[]> alice = charge("key-alice", key);
        HttpResponse<byte[]> bob = charge("key-bob", key);
        assertEquals(201, alice.statusCode(), text(alice));
        assertEquals(201, bob.statusCode(), text(bob));
        assertTrue(text(alice).contains("\"client\":\"alice\""), text(alice));
        assertTrue(text(bob).contains("\"client\":\"bob\""), "bob's charge is his own: " + text(bob));
        assertFalse(bob.headers().firstValue("Idempotent-Replayed").isPresent());
        assertEquals(before + 2, client.count("charges"));
        assertReplayOf(alice, charge("key-alice", key));
        assertReplayOf(bob, charge("key-bob", key));

        HttpResponse<byte[]> anonymous = charge(null, key);
        assertEquals(401, anonymous.statusCode(), "the application's own filter answers: " + text(anonymous));
        assertFalse(anonymous.headers().firstValue("Idempotent-Replayed").isPresent(), text(anonymous));
        assertFalse(text(anonymous).contains("\"charge\""), text(anonymous));
        assertEquals(before + 2, client.count("charges"));
    }

    // --- 13. a replay never hands an anonymous caller someone's session -----------------------------------------------

    @Test
    public void aSetCookieIsNotReplayedToAnAnonymousRetry() throws Exception {
        long before = client.count("signups");
        String key = key();
        HttpResponse<byte[]> first = client.send(client.request("/signup").header("Idempotency-Key", key).POST(HttpRequest.BodyPublishers.noBody()));
        assertEquals(201, first.statusCode(), text(first));
        assertTrue(first.headers().firstValue("Set-Cookie").orElse("").startsWith("LEGACY_SESSION="), first.headers().map().toString());
        HttpResponse<byte[]> retry = client.send(client.request("/signup").header("Idempotency-Key", key).POST(HttpRequest.BodyPublishers.noBody()));
        assertEquals(201, retry.statusCode(), text(retry));
        assertEquals("true", retry.headers().firstValue("Idempotent-Replayed").orElse(null), text(retry));
        assertArrayEquals(first.body(), retry.body());
        assertTrue(retry.headers().allValues("Set-Cookie").isEmpty(), "no session in a replay: " + retry.headers().allValues("Set-Cookie"));
        assertEquals(before + 1, client.count("signups"));
    }

    // --- 14. keys are compared exactly --------------------------------------------------------------------------------

    @Test
    public void aKeyWithATrailingSpaceIsAnotherKey() throws Exception {
        long before = client.count("transfers");
        String key = "abc-" + UUID.randomUUID();
        String body = "from=S&to=T&amount=14";
        HttpResponse<byte[]> spaced = form("/transfers", "\"" + key + " \"", body);
        HttpResponse<byte[]> plain = form("/transfers", "\"" + key + "\"", body);
        assertEquals(201, spaced.statusCode(), text(spaced));
        assertEquals(201, plain.statusCode(), text(plain));
        assertFalse(plain.headers().firstValue("Idempotent-Replayed").isPresent(), "\"" + key + "\" is not \"" + key + " \": " + text(plain));
        assertNotEquals(text(spaced), text(plain));
        assertEquals(before + 2, client.count("transfers"));
        assertReplayOf(spaced, form("/transfers", "\"" + key + " \"", body));
        assertReplayOf(plain, form("/transfers", key, body));
        assertEquals(before + 2, client.count("transfers"));
    }

    // --- helpers ------------------------------------------------------------------------------------------------------

    public static String enc(String s) {
        return URLEncoder.encode(s, StandardCharsets.UTF_8);
    }

    public HttpResponse<byte[]> form(String path, String key, String body) throws Exception {
        HttpRequest.Builder r = client.request(path).header("Content-Type", FORM).POST(HttpRequest.BodyPublishers.ofString(body, StandardCharsets.UTF_8));
        if (key != null) r.header("Idempotency-Key", key);
        return client.send(r);
    }

    public HttpResponse<byte[]> upload(String key, String boundary, byte[] description, byte[] file) throws Exception {
        ByteArrayOutputStream body = new ByteArrayOutputStream();
        body.write(("--" + boundary + "\r\nContent-Disposition: form-data; name=\"description\"\r\n"
                + "Content-Type: text/plain; charset=UTF-8\r\n\r\n").getBytes(StandardCharsets.UTF_8));
        body.write(description);
        body.write(("\r\n--" + boundary + "\r\nContent-Disposition: form-data; name=\"file\"; filename=\"scan.bin\"\r\n"
                + "Content-Type: application/octet-stream\r\n\r\n").getBytes(StandardCharsets.UTF_8));
        body.write(file);
        body.write(("\r\n--" + boundary + "--\r\n").getBytes(StandardCharsets.UTF_8));
        return client.send(client.request("/uploads").header("Idempotency-Key", key)
                .header("Content-Type", "multipart/form-data; boundary=" + boundary)
                .POST(HttpRequest.BodyPublishers.ofByteArray(body.toByteArray())));
    }

    public static String sha256(byte[] bytes) throws Exception {
        return HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(bytes));
    }

    /** The slow worker of a ticket: "none", "held" or "done". */
    public String state(String ticket) {
        try {
            String json = text(client.send(client.request("/slow-async/status?ticket=" + ticket)));
            Matcher m = Pattern.compile("\"state\":\"([a-z]+)\"").matcher(json);
            if (!m.find()) throw new AssertionError("no state in " + json);
            return m.group(1);
        } catch (Exception e) {
            throw new IllegalStateException(e);
        }
    }

    public void release(String ticket) throws Exception {
        HttpResponse<byte[]> r = client.send(client.request("/slow-async/release?ticket=" + ticket).POST(HttpRequest.BodyPublishers.noBody()));
        assertEquals(200, r.statusCode(), text(r));
    }

    /** Logs in through the application's own form and returns its session cookie ("LEGACY_SESSION=..."). */
    public String login(String user) throws Exception {
        HttpResponse<byte[]> r = form("/login", null, "user=" + enc(user));
        assertEquals(200, r.statusCode(), text(r));
        String setCookie = r.headers().firstValue("Set-Cookie").orElse(null);
        assertNotNull(setCookie, "login sets a cookie");
        return setCookie.split(";", 2)[0];
    }

    public HttpResponse<byte[]> order(String cookie, String key) throws Exception {
        return client.send(client.request("/account/orders").header("Cookie", cookie).header("Idempotency-Key", key)
                .header("Content-Type", FORM).POST(HttpRequest.BodyPublishers.ofString("item=book")));
    }

    public HttpResponse<byte[]> charge(String apiKey, String key) throws Exception {
        HttpRequest.Builder r = client.request("/api/charges").header("Idempotency-Key", key).header("Content-Type", FORM)
                .POST(HttpRequest.BodyPublishers.ofString("amount=700"));
        if (apiKey != null) r.header("X-API-Key", apiKey);
        return client.send(r);
    }
}
