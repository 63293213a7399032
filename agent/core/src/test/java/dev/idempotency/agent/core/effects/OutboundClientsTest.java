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
import java.lang.reflect.Method;
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
        call(client, "GET", url("/rates?currency=EUR"));
        call(client, "POST", url("/charges?card=4242"));
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
            call(client, "POST", url("/charges"));
        } catch (Throwable t) {
            refused = t instanceof java.lang.reflect.InvocationTargetException ? t.getCause() : t;
        }
        effects.close();
        assertTrue(refused instanceof IOException && refused.getMessage().contains("no longer owns its idempotency key"), String.valueOf(refused));
        assertEquals(0, received.get(), "the call never reached the server");
    }

    /** One call through the woven client, by reflection: the client's classes live in their own loader. */
    private static void call(String client, String method, String url) throws Exception {
        ClassLoader loader = WovenJar.of("apache4".equals(client) ? "org.apache.http.impl.client.InternalHttpClient"
                : "apache5".equals(client) ? "org.apache.hc.client5.http.impl.classic.InternalHttpClient" : "okhttp3.internal.connection.RealCall");
        switch (client) {
            case "apache4": {
                Object http = loader.loadClass("org.apache.http.impl.client.HttpClients").getMethod("createDefault").invoke(null);
                Object request = loader.loadClass("org.apache.http.client.methods." + ("GET".equals(method) ? "HttpGet" : "HttpPost"))
                        .getConstructor(String.class).newInstance(url);
                Object response = find(http.getClass(), "execute", 1).invoke(http, request);
                ((java.io.Closeable) response).close();
                ((java.io.Closeable) http).close();
                return;
            }
            case "apache5": {
                Object http = loader.loadClass("org.apache.hc.client5.http.impl.classic.HttpClients").getMethod("createDefault").invoke(null);
                Object request = loader.loadClass("org.apache.hc.client5.http.classic.methods." + ("GET".equals(method) ? "HttpGet" : "HttpPost"))
                        .getConstructor(String.class).newInstance(url);
                Method execute = null;
                for (Method m : http.getClass().getMethods()) {
                    if (m.getName().equals("execute") && m.getParameterCount() == 1 && m.getParameterTypes()[0].getSimpleName().equals("ClassicHttpRequest")) execute = m;
                }
                Object response = execute.invoke(http, request);
                ((java.io.Closeable) response).close();
                ((java.io.Closeable) http).close();
                return;
            }
            default: {
                Object http = loader.loadClass("okhttp3.OkHttpClient").getConstructor().newInstance();
                Object builder = loader.loadClass("okhttp3.Request$Builder").getConstructor().newInstance();
                builder.getClass().getMethod("url", String.class).invoke(builder, url);
                if ("POST".equals(method)) {
                    Class<?> body = loader.loadClass("okhttp3.RequestBody");
                    Object empty = body.getMethod("create", byte[].class, loader.loadClass("okhttp3.MediaType")).invoke(null, new byte[0], null);
                    builder.getClass().getMethod("post", body).invoke(builder, empty);
                }
                Object request = builder.getClass().getMethod("build").invoke(builder);
                Object call = http.getClass().getMethod("newCall", request.getClass()).invoke(http, request);
                Object response = call.getClass().getMethod("execute").invoke(call);
                ((java.io.Closeable) response).close();
            }
        }
    }

    private static Method find(Class<?> type, String name, int parameters) {
        for (Method m : type.getMethods()) {
            if (m.getName().equals(name) && m.getParameterCount() == parameters && m.getParameterTypes()[0].getSimpleName().equals("HttpUriRequest")) return m;
        }
        throw new IllegalStateException("no " + name);
    }
}
