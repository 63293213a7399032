package dev.idempotency.e2e.bench;

import dev.idempotency.e2e.servers.ServerHandle;


import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Memory under large keyed bodies: N concurrent keyed POSTs of 1 MiB each to an endpoint that reads its body whole and
 * echoes it ({@code /shop/echo}), on a stock Tomcat 9 at several maximum heaps, without and with the agent. For each:
 * how many got their own bytes back at the first attempt, how many the agent refused with 503 + Retry-After (before
 * reading), what else happened (other statuses, dropped connections), whether the server logged an OutOfMemoryError,
 * and, retrying refused requests as their Retry-After says (as an SDK would), how many completed and how many times
 * the application ran (exactly once per key is the promise). Run through demo-apps/bench/memory.sh.
 *
 * <p>Arguments: heaps (comma separated, default 256m,288m,384m,512m), concurrent requests (default 200), body bytes
 * (default 1048576), agent settings as name=value pairs.
 */
public final class MemoryBenchmark {
    private static final Pattern COUNT = Pattern.compile("\"echo\"\\s*:\\s*(\\d+)");

    public static void main(String[] args) throws Exception {
        String[] heaps = (args.length > 0 ? args[0] : "256m,288m,384m,512m").split(",");
        int requests = args.length > 1 ? Integer.parseInt(args[1]) : 200;
        int bodyBytes = args.length > 2 ? Integer.parseInt(args[2]) : 1 << 20;
        Map<String, String> settings = new TreeMap<>();
        for (int i = 3; i < args.length; i++) {
            String[] pair = args[i].split("=", 2);
            settings.put(pair[0], pair[1]);
        }
        System.out.printf("memory benchmark: Tomcat 9, %d concurrent keyed POSTs of %d bytes echoed back, agent settings %s%n",
                requests, bodyBytes, settings);
        System.out.println("| heap | server | 200 first try | 503 agent-busy | other | dropped | OOM in log | done after retries | executions |");
        System.out.println("|---|---|---:|---:|---:|---:|---|---:|---:|");
        for (String heap : heaps) {
            for (boolean agent : new boolean[] {false, true}) {
                try (ServerHandle server = ServerHandle.tomcat9(agent, heap.trim(), settings)) {
                    server.start();
                    Row row = run(server, requests, bodyBytes);
                    boolean oom = server.log().contains("OutOfMemoryError");
                    System.out.printf("| %s | %s | %d | %d | %d | %d | %s | %d | %s |%n", heap.trim(), agent ? "with agent" : "without agent",
                            row.ok, row.busy, row.other, row.dropped, oom ? "yes" : "no", row.doneAfterRetries,
                            row.executions < 0 ? "server gone" : String.valueOf(row.executions));
                }
            }
        }
        System.exit(0); // the HTTP client's threads of a server that died must not keep the run alive
    }

    private static final class Row {
        public int ok;
        public int busy;
        public int other;
        public int dropped;
        public int doneAfterRetries;
        public long executions;
    }

    private static Row run(ServerHandle server, int requests, int bodyBytes) throws Exception {
        HttpClient http = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).connectTimeout(Duration.ofSeconds(10)).build();
        String base = "http://127.0.0.1:" + server.port() + "/shop";
        long before = executions(http, base);
        List<String> keys = new ArrayList<>();
        List<byte[]> bodies = new ArrayList<>();
        for (int i = 0; i < requests; i++) {
            keys.add(UUID.randomUUID().toString());
            byte[] body = new byte[bodyBytes];
            Arrays.fill(body, (byte) ('a' + i % 26));
            bodies.add(body);
        }
        Row row = new Row();
        Map<Integer, Integer> retryAfter = new ConcurrentHashMap<>();
        List<CompletableFuture<Void>> all = new ArrayList<>();
        AtomicInteger ok = new AtomicInteger(), busy = new AtomicInteger(), other = new AtomicInteger(), dropped = new AtomicInteger();
        for (int i = 0; i < requests; i++) {
            int n = i;
            all.add(http.sendAsync(echo(base, keys.get(i), bodies.get(i)), HttpResponse.BodyHandlers.ofByteArray())
                    .handle((r, failure) -> {
                        if (failure != null) dropped.incrementAndGet();
                        else if (r.statusCode() == 200 && Arrays.equals(bodies.get(n), r.body())) ok.incrementAndGet();
                        else if (r.statusCode() == 503 && new String(r.body(), StandardCharsets.UTF_8).contains("agent-busy")) {
                            busy.incrementAndGet();
                            retryAfter.put(n, Integer.parseInt(r.headers().firstValue("Retry-After").orElse("1")));
                        } else other.incrementAndGet();
                        return null;
                    }));
        }
        CompletableFuture.allOf(all.toArray(new CompletableFuture[0])).join();
        row.ok = ok.get();
        row.busy = busy.get();
        row.other = other.get();
        row.dropped = dropped.get();
        // Refused requests again, as their Retry-After says, a bounded number of rounds.
        List<Integer> waiting = new ArrayList<>(retryAfter.keySet());
        Collections.sort(waiting);
        int done = row.ok;
        for (int round = 0; round < 60 && !waiting.isEmpty(); round++) {
            Thread.sleep(1000L * waiting.stream().mapToInt(retryAfter::get).max().orElse(1));
            List<CompletableFuture<HttpResponse<byte[]>>> again = new ArrayList<>();
            for (int n : waiting) again.add(http.sendAsync(echo(base, keys.get(n), bodies.get(n)), HttpResponse.BodyHandlers.ofByteArray()));
            List<Integer> still = new ArrayList<>();
            for (int i = 0; i < waiting.size(); i++) {
                HttpResponse<byte[]> r;
                try {
                    r = again.get(i).join();
                } catch (RuntimeException e) {
                    continue; // dropped: given up on
                }
                int n = waiting.get(i);
                if (r.statusCode() == 200 && Arrays.equals(bodies.get(n), r.body())) done++;
                else if (r.statusCode() == 503) still.add(n);
            }
            waiting = still;
        }
        row.doneAfterRetries = done;
        try {
            row.executions = executions(http, base) - before;
        } catch (java.io.IOException e) {
            row.executions = -1; // the server no longer answers (it ran out of memory)
        }
        return row;
    }

    private static HttpRequest echo(String base, String key, byte[] body) {
        return HttpRequest.newBuilder(URI.create(base + "/echo")).timeout(Duration.ofSeconds(120)).header("Idempotency-Key", key)
                .header("Content-Type", "application/octet-stream").POST(HttpRequest.BodyPublishers.ofByteArray(body)).build();
    }

    private static long executions(HttpClient http, String base) throws Exception {
        String json = http.send(HttpRequest.newBuilder(URI.create(base + "/counters")).timeout(Duration.ofSeconds(30)).build(),
                HttpResponse.BodyHandlers.ofString()).body();
        Matcher m = COUNT.matcher(json);
        return m.find() ? Long.parseLong(m.group(1)) : 0;
    }
}
