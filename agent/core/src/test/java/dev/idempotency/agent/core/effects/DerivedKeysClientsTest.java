package dev.idempotency.agent.core.effects;

import com.sun.net.httpserver.HttpServer;
import dev.idempotency.agent.bootstrap.bridge.EffectBridge;
import dev.idempotency.agent.core.config.HttpMethods;
import dev.idempotency.agent.core.config.OutboundHosts;
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
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.List;
import java.util.UUID;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Derived keys through the real jars of Apache HttpClient 4 and 5 and OkHttp, woven as the transformer weaves them,
 * calling a real server that records what it received: a listed host gets a key on its unsafe calls, a different one
 * for each call to the same path and the same ones again when the request runs again; an unlisted host, a safe method
 * and a call whose header the application set itself get nothing added.
 */
class DerivedKeysClientsTest {
    private static final byte[] SECRET = "0123456789abcdef0123456789abcdef".getBytes(StandardCharsets.US_ASCII);
    private JdbcIdempotencyStore store;
    private HttpServer server;
    /** "METHOD path Idempotency-Key PayPal-Request-Id" of every request received. */
    private final List<String> received = Collections.synchronizedList(new ArrayList<>());

    @BeforeEach
    void start() throws IOException {
        EffectWatch.install();
        DerivedKeys.configure(OutboundHosts.parse("127.0.0.1, *.example.test=PayPal-Request-Id"), OutboundHosts.NONE,
                new HttpMethods(Arrays.asList("POST", "PATCH")), () -> SECRET.clone());
        store = JdbcIdempotencyStore.open(StoreSettings.builder().url("jdbc:h2:mem:keys-" + UUID.randomUUID() + ";DB_CLOSE_DELAY=-1")
                .expiredLeasePolicy(ExpiredLeasePolicy.TRANSACTION).build());
        server = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 10);
        server.createContext("/", exchange -> {
            exchange.getRequestBody().readAllBytes();
            received.add(exchange.getRequestMethod() + " " + exchange.getRequestURI().getPath() + " "
                    + exchange.getRequestHeaders().getFirst("Idempotency-Key"));
            exchange.sendResponseHeaders(200, 2);
            exchange.getResponseBody().write("ok".getBytes(StandardCharsets.US_ASCII));
            exchange.close();
        });
        server.start();
    }

    @AfterEach
    void stop() {
        RequestEffects.unwatchCurrentThread();
        DerivedKeys.unbindCurrentThread();
        DerivedKeys.configure(null, null, null, null);
        EffectBridge.install(null);
        server.stop(0);
        store.close();
    }

    private String url(String host, String path) {
        return "http://" + host + ":" + server.getAddress().getPort() + path;
    }

    private List<String> oneRun(String client, String key) throws Exception {
        received.clear();
        DerivedKeys keys = DerivedKeys.bind("scope-a", key);
        WovenClients.call(client, "POST", url("127.0.0.1", "/v1/charges"), null);
        WovenClients.call(client, "GET", url("127.0.0.1", "/v1/charges"), null);
        WovenClients.call(client, "POST", url("localhost", "/v1/refunds"), null); // not listed, and between the two charges
        WovenClients.call(client, "POST", url("127.0.0.1", "/v1/charges"), null);
        WovenClients.call(client, "POST", url("127.0.0.1", "/v1/customers"), "the-applications-own");
        keys.close();
        return new ArrayList<>(received);
    }

    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {"apache4", "apache5", "okhttp"})
    void aListedHostGetsAKeyPerCallTheSameOnEveryRunAndNothingElseChanges(String client) throws Exception {
        List<String> first = oneRun(client, "incoming-1");
        assertEquals(5, first.size(), first.toString());
        String charge1 = keyOf(first.get(0));
        String charge2 = keyOf(first.get(3));
        assertTrue(charge1.matches("[0-9a-f]{8}-[0-9a-f]{4}-8[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}"), charge1);
        assertNotEquals(charge1, charge2, "two calls to the same path get two keys");
        assertEquals("GET /v1/charges null", first.get(1), "a safe method gets none");
        assertEquals("POST /v1/refunds null", first.get(2), "an unlisted host gets none");
        assertEquals("POST /v1/customers the-applications-own", first.get(4), "the application's own header is left alone");
        assertEquals(first, oneRun(client, "incoming-1"), "the request run again sends the same keys");
        List<String> other = oneRun(client, "incoming-2");
        assertNotEquals(charge1, keyOf(other.get(0)), "another incoming key, other derived keys");
        assertEquals(DerivedKeys.derive(SECRET, "scope-a", "incoming-1", "POST", "127.0.0.1", server.getAddress().getPort(), "/v1/charges", 1), charge2);
    }

    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {"apache4", "apache5", "okhttp"})
    void underTransactionRecoveryAKeyedCallIsMarkedSafeToRepeatAndAnUnlistedOneIsNot(String client) throws Exception {
        Reservation owned = store.reserve("t", client, "fp");
        RequestEffects effects = RequestEffects.watch(store, owned.token(), "idempotency_keys", "test request");
        DerivedKeys keys = DerivedKeys.bind("t", client);
        WovenClients.call(client, "POST", url("127.0.0.1", "/v1/charges?amount=5"), null);
        WovenClients.call(client, "POST", url("localhost", "/v1/refunds"), null);
        keys.close();
        effects.close();
        List<EffectMark> marks = store.find("t", client).get().effects();
        assertEquals(2, marks.size(), marks.toString());
        assertEquals(EffectMark.Kind.KEYED_CALL, marks.get(0).kind());
        assertEquals("HTTP POST " + url("127.0.0.1", "/v1/charges") + " Idempotency-Key: " + keyOf(received.get(0)), marks.get(0).detail());
        assertEquals(EffectMark.Kind.EXTERNAL, marks.get(1).kind());
        assertEquals("HTTP POST " + url("localhost", "/v1/refunds"), marks.get(1).detail());
    }

    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {"apache4", "okhttp"})
    void outsideAKeyedRequestNothingIsAdded(String client) throws Exception {
        WovenClients.call(client, "POST", url("127.0.0.1", "/v1/charges"), null);
        assertEquals(List.of("POST /v1/charges null"), received);
    }

    private static String keyOf(String line) {
        String key = line.substring(line.lastIndexOf(' ') + 1);
        assertNotEquals("null", key, line);
        return key;
    }

    @org.junit.jupiter.api.Test
    void keyedCallsNeverCrowdOutAMarkThatForbidsARerun() throws Exception {
        Reservation owned = store.reserve("t", "crowded", "fp");
        RequestEffects effects = RequestEffects.watch(store, owned.token(), "idempotency_keys", "test request");
        DerivedKeys keys = DerivedKeys.bind("t", "crowded");
        for (int i = 0; i < 12; i++) WovenClients.call("apache4", "POST", url("127.0.0.1", "/v1/charges/" + i), null);
        boolean afterKeyedCalls = effects.marked();
        WovenClients.call("apache4", "POST", url("localhost", "/v1/refunds"), null);
        keys.close();
        effects.close();
        assertTrue(!afterKeyedCalls, "calls with derived keys alone leave the key free to be given up and run again");
        assertTrue(effects.marked());
        List<EffectMark> marks = store.find("t", "crowded").get().effects();
        assertTrue(marks.stream().anyMatch(m -> m.kind() == EffectMark.Kind.EXTERNAL && m.detail().endsWith("/v1/refunds")), marks.toString());
    }

    /** The JDK's HttpRequest cannot change: each send of the same request object must leave with the same key again. */
    @org.junit.jupiter.api.Test
    void aJdkRequestSentTwiceCarriesTheSameKeyEachTime() throws Exception {
        java.net.http.HttpRequest original = java.net.http.HttpRequest.newBuilder(java.net.URI.create(url("127.0.0.1", "/v1/charges")))
                .header("X-Trace", "1").POST(java.net.http.HttpRequest.BodyPublishers.ofString("amount=5")).build();
        EffectWatch watch = new EffectWatch();
        DerivedKeys keys = DerivedKeys.bind("t", "jdk");
        java.net.http.HttpRequest first = (java.net.http.HttpRequest) watch.beforeHttpCall(original);
        java.net.http.HttpRequest again = (java.net.http.HttpRequest) watch.beforeHttpCall(original);
        java.net.http.HttpRequest inner = (java.net.http.HttpRequest) watch.beforeHttpCall(first); // send() hands it to sendAsync()
        keys.close();
        String key = first.headers().firstValue("Idempotency-Key").orElse(null);
        assertEquals(DerivedKeys.derive(SECRET, "t", "jdk", "POST", "127.0.0.1", server.getAddress().getPort(), "/v1/charges", 0), key);
        assertEquals(key, again.headers().firstValue("Idempotency-Key").orElse(null), "sent again: the same key");
        assertTrue(inner == first, "the rebuilt request is already the call's");
        assertEquals("1", first.headers().firstValue("X-Trace").orElse(null), "the request's own headers stay");
        assertEquals(original.method(), first.method());
        assertEquals(original.bodyPublisher().get().contentLength(), first.bodyPublisher().get().contentLength());
        assertNull(original.headers().firstValue("Idempotency-Key").orElse(null));
    }
}
