package dev.idempotency.agent.core.inprocess;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

import java.net.URLEncoder;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import static dev.idempotency.agent.core.inprocess.Answers.assertProblem;
import static dev.idempotency.agent.core.inprocess.Answers.assertReplayOf;
import static dev.idempotency.agent.core.inprocess.Answers.assertWrittenByTheApplication;
import static dev.idempotency.agent.core.inprocess.Answers.replayed;
import static dev.idempotency.agent.core.inprocess.Answers.text;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The agent's core promises, asked of a servlet shop on an embedded server in this JVM. Each test sends its own
 * reference, under which the application counts its runs and keeps what it wrote; each subclass names a server.
 */
@Tag(InProcessAgent.TAG)
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
abstract class ShopScenarios {
    private RunningShop shop;
    ShopClient client;

    /** The shop on the server under test, started. */
    abstract RunningShop startShop() throws Exception;

    @BeforeAll
    void startServer() throws Exception {
        InProcessAgent.requireRunning();
        shop = startShop();
        client = new ShopClient(shop.baseUrl());
    }

    @AfterAll
    void stopServer() throws Exception {
        if (shop != null) shop.close();
    }

    static String fresh() {
        return UUID.randomUUID().toString();
    }

    @Test
    void aNewKeyGetsTheApplicationsOwnAnswerAndItsRetryTheSameBytes() throws Exception {
        String ref = fresh();
        String key = fresh();
        String path = "/payments?ref=" + ref;
        HttpResponse<byte[]> first = client.post(path, key, ShopClient.JSON,
                "{\"amount\": 1250, \"currency\": \"eur\"}");
        assertWrittenByTheApplication(AppLedger.written(ref), first);
        assertEquals(201, first.statusCode());

        // the same payment, its JSON keys in another order and without the whitespace
        HttpResponse<byte[]> retry = client.post(path, key, ShopClient.JSON, "{\"currency\":\"eur\",\"amount\":1250}");
        assertReplayOf(first, AppLedger.written(ref), retry);
        assertEquals(1, AppLedger.runs(ref), "a retry must not run the application again");
    }

    @Test
    void aDuplicateWhileTheFirstStillRunsGets409WithRetryAfter() throws Exception {
        String ref = fresh();
        String key = fresh();
        String path = "/payments?ref=" + ref;
        CompletableFuture<HttpResponse<byte[]>> first;
        try (Holds.Hold hold = Holds.arm(ref)) {
            first = client.postAsync(path, key, ShopClient.JSON, "{\"amount\":99}");
            hold.awaitArrival();
            HttpResponse<byte[]> duplicate = client.post(path, key, ShopClient.JSON, "{\"amount\":99}");
            assertProblem(duplicate, 409, "request-in-progress");
            int retryAfter = Integer.parseInt(duplicate.headers().firstValue("Retry-After").orElse("0"));
            assertTrue(retryAfter >= 1, "Retry-After: " + retryAfter);
            assertEquals(1, AppLedger.runs(ref), "the duplicate must not run the application");
        }
        HttpResponse<byte[]> done = first.get(30, TimeUnit.SECONDS);
        assertWrittenByTheApplication(AppLedger.written(ref), done);
        assertReplayOf(done, AppLedger.written(ref), client.post(path, key, ShopClient.JSON, "{\"amount\":99}"));
        assertEquals(1, AppLedger.runs(ref));
    }

    @Test
    void theSameKeyWithAnotherBodyIs422AndDoesNotRun() throws Exception {
        String ref = fresh();
        String key = fresh();
        assertEquals(201, client.post("/payments?ref=" + ref, key, ShopClient.JSON, "{\"amount\":10}").statusCode());
        assertProblem(client.post("/payments?ref=" + ref, key, ShopClient.JSON, "{\"amount\":11}"), 422, "key-reused");
        assertEquals(1, AppLedger.runs(ref));
    }

    @Test
    void withoutAKeyTheApplicationRunsEveryTime() throws Exception {
        String ref = fresh();
        HttpResponse<byte[]> one = client.post("/payments?ref=" + ref, null, ShopClient.JSON, "{\"amount\":3}");
        HttpResponse<byte[]> two = client.post("/payments?ref=" + ref, null, ShopClient.JSON, "{\"amount\":3}");
        assertEquals(201, one.statusCode(), text(one));
        assertFalse(replayed(one) || replayed(two), "nothing is replayed without a key");
        assertWrittenByTheApplication(AppLedger.written(ref), two);
        assertNotEquals(text(one), text(two), "each run answers anew");
        assertEquals(2, AppLedger.runs(ref));
    }

    @Test
    void aServerErrorReleasesTheKeyAndTheRetryRunsAgain() throws Exception {
        String ref = fresh();
        String key = fresh();
        for (int attempt = 1; attempt <= 2; attempt++) {
            HttpResponse<byte[]> failed = client.post("/payments?fail=true&ref=" + ref, key, ShopClient.JSON,
                    "{\"amount\":1}");
            assertEquals(500, failed.statusCode(), "attempt " + attempt + ": " + text(failed));
            assertFalse(replayed(failed), "a 5xx is not kept: attempt " + attempt + " ran the application");
        }
        assertEquals(2, AppLedger.runs(ref));
    }

    @Test
    void aFormReadByAFilterFirstReachesTheServletWholeAndIsReplayed() throws Exception {
        String ref = fresh();
        String key = fresh();
        String note = "café – € 日本";
        String form = "from=ACC-1&to=ACC-2&amount=125&note=" + URLEncoder.encode(note, StandardCharsets.UTF_8);
        HttpResponse<byte[]> first = client.post("/transfers?ref=" + ref, key, ShopClient.FORM, form);
        assertWrittenByTheApplication(AppLedger.written(ref), first);
        assertTrue(text(first).contains(Shop.transferFields("ACC-1", "ACC-2", "125", note)),
                "the servlet saw every field: " + text(first));

        HttpResponse<byte[]> reordered = client.post("/transfers?ref=" + ref, key, ShopClient.FORM,
                "note=" + URLEncoder.encode(note, StandardCharsets.UTF_8) + "&amount=125&to=ACC-2&from=ACC-1");
        assertReplayOf(first, AppLedger.written(ref), reordered);
        HttpResponse<byte[]> changed = client.post("/transfers?ref=" + ref, key, ShopClient.FORM,
                form.replace("amount=125", "amount=126"));
        assertProblem(changed, 422, "key-reused");
        assertEquals(1, AppLedger.runs(ref));
    }

    @Test
    void anAsyncAnswerCompletedOnAnotherThreadIsKeptAndReplayed() throws Exception {
        String ref = fresh();
        String key = fresh();
        String path = "/async-payments?amount=77&ref=" + ref;
        HttpResponse<byte[]> first = client.post(path, key, null, null);
        assertWrittenByTheApplication(AppLedger.written(ref), first);
        assertEquals(202, first.statusCode());
        assertReplayOf(first, AppLedger.written(ref), client.post(path, key, null, null));
        assertEquals(1, AppLedger.runs(ref));
    }

    /**
     * Every request of a handled method counts once for its endpoint (an HttpServlet enters the agent twice): without a
     * key, with one, a replay and a 422; a `required` pattern with a typo is reported.
     */
    @Test
    void theEndpointInventoryCountsEachRequestOnceForItsEndpoint() throws Exception {
        long[] before = InProcessEndpoints.totals(Shop.CONTEXT, "POST");
        for (int i = 0; i < 3; i++) {
            assertEquals(201, client.post("/payments?ref=" + fresh(), null, ShopClient.JSON, "{\"amount\":1}").statusCode());
        }
        String key = fresh();
        String path = "/payments?ref=" + fresh();
        assertEquals(201, client.post(path, key, ShopClient.JSON, "{\"amount\":2}").statusCode());
        assertTrue(replayed(client.post(path, key, ShopClient.JSON, "{\"amount\":2}")));
        assertProblem(client.post(path, key, ShopClient.JSON, "{\"amount\":3}"), 422, "key-reused");
        long[] after = InProcessEndpoints.totals(Shop.CONTEXT, "POST");
        // keyed, unkeyed, replayed, 409s, 422s, 400s
        long[] played = {3, 3, 1, 0, 1, 0};
        for (int i = 0; i < played.length; i++) {
            assertEquals(played[i], after[i] - before[i], "column " + i + " of " + InProcessEndpoints.rows());
        }
        assertTrue(InProcessEndpoints.rows().stream().anyMatch(r -> r.startsWith(Shop.CONTEXT + "\tPOST\t/payments\t")
                        || r.startsWith(Shop.CONTEXT + "\tPOST\tservlet ")), InProcessEndpoints.rows().toString());
        assertEquals(java.util.Collections.singletonList("/shop/transfer/**"), InProcessEndpoints.requiredUnmatched());
        assertEquals(0, InProcessEndpoints.failures());
    }
}
