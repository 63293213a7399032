package dev.idempotency.e2e.support;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;

import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.IntFunction;

/**
 * A payment provider that honours Idempotency-Key as Stripe does: a new key (or none) executes the charge; the same key
 * with the same payload answers the first response again without executing; the same key with another payload is an
 * error (400). Counts executions and records the key of every request, per transfer (the last segment of the path).
 */
public final class ProviderStub implements AutoCloseable {
    private static final class Stored {
        public final byte[] payload;
        public final byte[] response;

        public Stored(byte[] payload, byte[] response) {
            this.payload = payload;
            this.response = response;
        }
    }

    private final HttpServer server;
    private final Map<String, AtomicInteger> executions = new ConcurrentHashMap<>();
    private final Map<String, List<String>> keys = new ConcurrentHashMap<>();
    private final Map<String, Stored> byKey = new ConcurrentHashMap<>();
    private final AtomicInteger charges = new AtomicInteger();

    public ProviderStub() throws IOException {
        this(InetAddress.getLoopbackAddress());
    }

    /**
     * Bound to {@code address}. Besides /psp/{transfer} (JSON in, JSON out), it answers Stripe's POST
     * /v1/payment_intents for the Stripe SDK, the transfer read from metadata[transfer]; a transfer named flaky-...
     * has its first attempt executed and its answer lost (500 with Stripe-Should-Retry: true), as after a timeout.
     */
    public ProviderStub(InetAddress address) throws IOException {
        server = HttpServer.create(new InetSocketAddress(address, 0), 50);
        server.createContext("/psp/", exchange -> {
            byte[] payload = exchange.getRequestBody().readAllBytes();
            String path = exchange.getRequestURI().getPath();
            answer(exchange, path.substring(path.lastIndexOf('/') + 1), payload, n -> "{\"charge\":\"ch_" + n + "\"}");
        });
        server.createContext("/v1/payment_intents", exchange -> {
            byte[] payload = exchange.getRequestBody().readAllBytes();
            String transfer = "?";
            for (String pair : new String(payload, StandardCharsets.UTF_8).split("&")) {
                int eq = pair.indexOf('=');
                if (eq > 0 && URLDecoder.decode(pair.substring(0, eq), StandardCharsets.UTF_8).equals("metadata[transfer]")) {
                    transfer = URLDecoder.decode(pair.substring(eq + 1), StandardCharsets.UTF_8);
                }
            }
            answer(exchange, transfer, payload, n -> "{\"id\":\"pi_" + n + "\",\"object\":\"payment_intent\",\"amount\":1200,"
                    + "\"currency\":\"eur\",\"status\":\"succeeded\"}");
        });
        server.start();
    }

    private void answer(HttpExchange exchange, String transfer, byte[] payload, IntFunction<String> executed) throws IOException {
        String key = exchange.getRequestHeaders().getFirst("Idempotency-Key");
        int status = 200;
        byte[] answer;
        synchronized (this) {
            List<String> seen = keys.computeIfAbsent(transfer, k -> new ArrayList<>());
            seen.add(String.valueOf(key));
            Stored earlier = key == null ? null : byKey.get(key);
            if (earlier != null && Arrays.equals(earlier.payload, payload)) {
                answer = earlier.response;
                exchange.getResponseHeaders().add("Idempotent-Replayed", "true");
            } else if (earlier != null) {
                status = 400;
                answer = "{\"error\":{\"type\":\"idempotency_error\"}}".getBytes(StandardCharsets.UTF_8);
            } else {
                executions.computeIfAbsent(transfer, k -> new AtomicInteger()).incrementAndGet();
                answer = executed.apply(charges.incrementAndGet()).getBytes(StandardCharsets.UTF_8);
                if (key != null) byKey.put(key, new Stored(payload, answer));
                if (transfer.startsWith("flaky-") && seen.size() == 1) {
                    status = 500; // executed, but the answer is lost: the client may retry with the same key
                    answer = "{\"error\":{\"type\":\"api_error\"}}".getBytes(StandardCharsets.UTF_8);
                    exchange.getResponseHeaders().add("Stripe-Should-Retry", "true");
                }
            }
        }
        exchange.getResponseHeaders().add("Content-Type", "application/json");
        exchange.sendResponseHeaders(status, answer.length);
        exchange.getResponseBody().write(answer);
        exchange.close();
    }

    /** The provider's API base through its own address (for the Stripe SDK). */
    public String base() {
        return "http://" + server.getAddress().getAddress().getHostAddress() + ":" + server.getAddress().getPort();
    }

    /** The provider's URL through {@code host} (127.0.0.1 and localhost reach the same stub under two names). */
    public String url(String host) {
        return "http://" + host + ":" + server.getAddress().getPort() + "/psp";
    }

    /** Charges executed for a transfer (not counting answers given again for a known key). */
    public int executions(String transfer) {
        AtomicInteger n = executions.get(transfer);
        return n == null ? 0 : n.get();
    }

    /** The Idempotency-Key of every call received for a transfer, in order ("null": none). */
    public synchronized List<String> keys(String transfer) {
        return new ArrayList<>(keys.getOrDefault(transfer, new ArrayList<>()));
    }

    @Override
    public void close() {
        server.stop(0);
    }
}
