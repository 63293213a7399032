package dev.idempotency.agent.core.inprocess;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

import java.net.http.HttpResponse;

import static dev.idempotency.agent.core.inprocess.Answers.assertProblem;
import static dev.idempotency.agent.core.inprocess.Answers.assertReplayOf;
import static dev.idempotency.agent.core.inprocess.Answers.assertWrittenByTheApplication;
import static dev.idempotency.agent.core.inprocess.ShopScenarios.fresh;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The orders resource on Jersey 2 behind its servlet in Jetty: the agent's JAX-RS filter decides. */
@Tag(InProcessAgent.TAG)
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class JerseyOrdersTest {
    private RunningShop shop;
    private ShopClient client;

    @BeforeAll
    void startServer() throws Exception {
        InProcessAgent.requireRunning();
        shop = JettyShop.start();
        client = new ShopClient(shop.baseUrl());
    }

    @AfterAll
    void stopServer() throws Exception {
        if (shop != null) shop.close();
    }

    @Test
    void anOrderWithANewKeyIsCreatedOnceAndItsRetryReplayed() throws Exception {
        String ref = fresh();
        String key = fresh();
        String path = "/api/orders?ref=" + ref;
        HttpResponse<byte[]> first = client.post(path, key, ShopClient.JSON, "{\"item\":\"book\",\"qty\":2}");
        assertWrittenByTheApplication(AppLedger.written(ref), first);
        assertEquals(201, first.statusCode());
        HttpResponse<byte[]> retry = client.post(path, key, ShopClient.JSON, "{\"qty\":2,\"item\":\"book\"}");
        assertReplayOf(first, AppLedger.written(ref), retry);
        assertEquals(1, AppLedger.runs(ref));
    }

    @Test
    void anotherOrderUnderTheSameKeyIs422() throws Exception {
        String ref = fresh();
        String key = fresh();
        String path = "/api/orders?ref=" + ref;
        assertEquals(201, client.post(path, key, ShopClient.JSON, "{\"item\":\"book\"}").statusCode());
        assertProblem(client.post(path, key, ShopClient.JSON, "{\"item\":\"pen\"}"), 422, "key-reused");
        assertEquals(1, AppLedger.runs(ref));
    }

    /** A JAX-RS request counts once, for its route template, under the application's base path; never the raw path. */
    @Test
    void theEndpointInventoryCountsRequestsByRouteTemplate() throws Exception {
        long[] before = InProcessEndpoints.totals("/shop/api", "POST");
        String key = fresh();
        String path = "/api/orders?ref=" + fresh();
        assertEquals(201, client.post(path, key, ShopClient.JSON, "{\"item\":\"ink\"}").statusCode());
        assertEquals("true", client.post(path, key, ShopClient.JSON, "{\"item\":\"ink\"}").headers()
                .firstValue("Idempotent-Replayed").orElse(null));
        for (int i = 0; i < 2; i++) {
            assertEquals(201, client.post("/api/orders?ref=" + fresh(), null, ShopClient.JSON, "{\"item\":\"pen\"}").statusCode());
        }
        long[] after = InProcessEndpoints.totals("/shop/api", "POST");
        long[] played = {2, 2, 1, 0, 0, 0};
        for (int i = 0; i < played.length; i++) {
            assertEquals(played[i], after[i] - before[i], "column " + i + " of " + InProcessEndpoints.rows());
        }
        assertTrue(InProcessEndpoints.rows().stream().anyMatch(r -> r.startsWith("/shop/api\tPOST\t/orders\tjaxrs\t")),
                InProcessEndpoints.rows().toString());
        assertTrue(InProcessEndpoints.rows().stream().noneMatch(r -> r.contains("ref=") || r.contains("/api/orders")),
                "never a raw path: " + InProcessEndpoints.rows());
        assertEquals(0, InProcessEndpoints.failures());
    }
}
