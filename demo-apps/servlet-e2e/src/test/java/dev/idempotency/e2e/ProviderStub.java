package dev.idempotency.e2e;

import com.sun.net.httpserver.HttpServer;

import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A payment provider that honours Idempotency-Key as Stripe does: a new key (or none) executes the charge; the same key
 * with the same payload answers the first response again without executing; the same key with another payload is an
 * error (400). Counts executions and records the key of every request, per transfer (the last segment of the path).
 */
final class ProviderStub implements AutoCloseable {
    private static final class Stored {
        final byte[] payload;
        final byte[] response;

        Stored(byte[] payload, byte[] response) {
            this.payload = payload;
            this.response = response;
        }
    }

    private final HttpServer server;
    private final Map<String, AtomicInteger> executions = new ConcurrentHashMap<>();
    private final Map<String, List<String>> keys = new ConcurrentHashMap<>();
    private final Map<String, Stored> byKey = new ConcurrentHashMap<>();
    private final AtomicInteger charges = new AtomicInteger();

    ProviderStub() throws IOException {
        server = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 50);
        server.createContext("/psp/", exchange -> {
            byte[] payload = exchange.getRequestBody().readAllBytes();
            String path = exchange.getRequestURI().getPath();
            String transfer = path.substring(path.lastIndexOf('/') + 1);
            String key = exchange.getRequestHeaders().getFirst("Idempotency-Key");
            synchronized (this) {
                keys.computeIfAbsent(transfer, k -> new ArrayList<>()).add(String.valueOf(key));
                int status = 200;
                byte[] answer;
                Stored earlier = key == null ? null : byKey.get(key);
                if (earlier != null && Arrays.equals(earlier.payload, payload)) {
                    answer = earlier.response;
                    exchange.getResponseHeaders().add("Idempotent-Replayed", "true");
                } else if (earlier != null) {
                    status = 400;
                    answer = "{\"error\":{\"type\":\"idempotency_error\"}}".getBytes(StandardCharsets.UTF_8);
                } else {
                    executions.computeIfAbsent(transfer, k -> new AtomicInteger()).incrementAndGet();
                    answer = ("{\"charge\":\"ch_" + charges.incrementAndGet() + "\"}").getBytes(StandardCharsets.UTF_8);
                    if (key != null) byKey.put(key, new Stored(payload, answer));
                }
                exchange.sendResponseHeaders(status, answer.length);
                exchange.getResponseBody().write(answer);
            }
            exchange.close();
        });
        server.start();
    }

    /** The provider's URL through {@code host} (127.0.0.1 and localhost reach the same stub under two names). */
    String url(String host) {
        return "http://" + host + ":" + server.getAddress().getPort() + "/psp";
    }

    /** Charges executed for a transfer (not counting answers given again for a known key). */
    int executions(String transfer) {
        AtomicInteger n = executions.get(transfer);
        return n == null ? 0 : n.get();
    }

    /** The Idempotency-Key of every call received for a transfer, in order ("null": none). */
    synchronized List<String> keys(String transfer) {
        return new ArrayList<>(keys.getOrDefault(transfer, new ArrayList<>()));
    }

    @Override
    public void close() {
        server.stop(0);
    }
}
