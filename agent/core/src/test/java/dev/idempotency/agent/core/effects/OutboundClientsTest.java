package dev.idempotency.agent.core.effects;

import com.sun.net.httpserver.HttpServer;
import dev.idempotency.agent.bootstrap.bridge.EffectBridge;
import dev.idempotency.store.EffectMark;
import dev.idempotency.store.ExpiredLeasePolicy;
import dev.idempotency.store.Reservation;
import dev.idempotency.store.StoreSettings;
import dev.idempotency.store.jdbc.JdbcIdempotencyStore;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.atomic.AtomicInteger;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The outbound HTTP clients a legacy application ships (Apache HttpClient 4 and 5, OkHttp), their real jars woven as the
 * transformer weaves them, calling a real server: an unsafe call of a keyed request is marked before it leaves, a safe
 * one is not, and a call that cannot be marked never reaches the server.
 */
class OutboundClientsTest {
    private JdbcIdempotencyStore store;
    private HttpServer server;
    private final AtomicInteger received = new AtomicInteger();

    @BeforeEach
    void start() throws IOException {
        EffectWatch.install();
        store = JdbcIdempotencyStore.open(StoreSettings.builder().url("jdbc:h2:mem:out-" + UUID.randomUUID() + ";DB_CLOSE_DELAY=-1")
                .expiredLeasePolicy(ExpiredLeasePolicy.TRANSACTION).build());
        server = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 10);
        server.createContext("/", exchange -> {
            exchange.getRequestBody().readAllBytes();
            received.incrementAndGet();
            exchange.sendResponseHeaders(200, 2);
            exchange.getResponseBody().write("ok".getBytes());
            exchange.close();
        });
        server.start();
    }

    @AfterEach
    void stop() {
        RequestEffects.unwatchCurrentThread();
        EffectBridge.install(null);
        server.stop(0);
        store.close();
    }

    private String url(String path) {
        return "http://127.0.0.1:" + server.getAddress().getPort() + path;
    }

    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {"apache4", "apache5", "okhttp"})
    void anUnsafeCallIsMarkedBeforeItLeavesAndASafeOneIsNot(String client) throws Exception {
        Reservation owned = store.reserve("t", client, "fp");
        RequestEffects effects = RequestEffects.watch(store, owned.token(), "idempotency_keys", "test request");
        WovenClients.call(client, "GET", url("/rates?currency=EUR"), null);
        WovenClients.call(client, "POST", url("/charges?card=4242"), null);
        effects.close();
        assertEquals(2, received.get());
        List<EffectMark> marks = store.find("t", client).get().effects();
        assertEquals(1, marks.size(), marks.toString());
        assertEquals(EffectMark.Kind.EXTERNAL, marks.get(0).kind());
        assertEquals("HTTP POST " + url("/charges"), marks.get(0).detail(), "named without its query");
    }

    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {"apache4", "apache5", "okhttp"})
    void aCallThatCannotBeMarkedNeverLeaves(String client) throws Exception {
        Reservation owned = store.reserve("t", client, "fp");
        RequestEffects effects = RequestEffects.watch(store, owned.token(), "idempotency_keys", "test request");
        store.release(owned.token()); // the key moved on
        Throwable refused = null;
        try {
            WovenClients.call(client, "POST", url("/charges"), null);
        } catch (Throwable t) {
            refused = t instanceof java.lang.reflect.InvocationTargetException ? t.getCause() : t;
        }
        effects.close();
        assertTrue(refused instanceof IOException && refused.getMessage().contains("no longer owns its idempotency key"), String.valueOf(refused));
        assertEquals(0, received.get(), "the call never reached the server");
    }
}
