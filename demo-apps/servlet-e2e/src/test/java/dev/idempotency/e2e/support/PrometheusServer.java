package dev.idempotency.e2e.support;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.idempotency.e2e.servers.ServerProcess;

import java.io.IOException;
import java.net.URI;
import java.net.URLEncoder;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * A real Prometheus server (Debian's binary) of the test's own, on a free loopback port, scraping one agent's metrics
 * endpoint every second and evaluating the given rules every second; queried through its HTTP API.
 */
public final class PrometheusServer implements AutoCloseable {
    public static final String JOB = "idempotency";
    private static final ObjectMapper JSON = new ObjectMapper();

    private final Process process;
    private final Path log;
    private final int port;
    private final HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();

    private PrometheusServer(Process process, Path log, int port) {
        this.process = process;
        this.log = log;
        this.port = port;
    }

    /** Starts Prometheus in {@code work}, scraping 127.0.0.1:{@code metricsPort} with {@code rules} loaded; waits until ready. */
    public static PrometheusServer start(Path binary, Path work, int metricsPort, String rules) throws Exception {
        Files.createDirectories(work);
        Files.write(work.resolve("rules.yml"), rules.getBytes(StandardCharsets.UTF_8));
        String config = String.join("\n",
                "global:",
                "  scrape_interval: 1s",
                "  scrape_timeout: 900ms",
                "  evaluation_interval: 1s",
                "rule_files:",
                "  - " + work.resolve("rules.yml"),
                "scrape_configs:",
                "  - job_name: " + JOB,
                "    static_configs:",
                "      - targets: ['127.0.0.1:" + metricsPort + "']",
                "");
        Files.write(work.resolve("prometheus.yml"), config.getBytes(StandardCharsets.UTF_8));
        int port = ServerProcess.freePort();
        Path log = work.resolve("prometheus.log");
        Process process = new ProcessBuilder(binary.toString(),
                "--config.file=" + work.resolve("prometheus.yml"),
                "--storage.tsdb.path=" + work.resolve("data"),
                "--web.listen-address=127.0.0.1:" + port,
                "--log.level=info")
                .directory(work.toFile()).redirectErrorStream(true).redirectOutput(log.toFile()).start();
        PrometheusServer server = new PrometheusServer(process, log, port);
        try {
            server.awaitReady();
        } catch (Throwable e) {
            server.close();
            throw e;
        }
        return server;
    }

    private void awaitReady() throws Exception {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        while (System.nanoTime() < deadline) {
            if (!process.isAlive()) throw new IllegalStateException("prometheus exited with " + process.exitValue() + ":\n" + logText());
            try {
                HttpResponse<String> r = http.send(HttpRequest.newBuilder(URI.create(base() + "/-/ready")).build(), HttpResponse.BodyHandlers.ofString());
                if (r.statusCode() == 200) return;
            } catch (IOException notYet) {
                // not listening yet
            }
            Thread.sleep(100);
        }
        throw new IllegalStateException("prometheus was not ready in 30 s:\n" + logText());
    }

    /** An instant query now: the {@code data.result} array; fails on anything but {@code status: success}. */
    public JsonNode query(String promql) throws IOException, InterruptedException {
        JsonNode answer = get("/api/v1/query?query=" + URLEncoder.encode(promql, StandardCharsets.UTF_8));
        return answer.path("data").path("result");
    }

    /** The alerting rules Prometheus loaded: {@code data.groups[].rules[]}. */
    public List<JsonNode> rules() throws IOException, InterruptedException {
        List<JsonNode> rules = new java.util.ArrayList<>();
        for (JsonNode group : get("/api/v1/rules?type=alert").path("data").path("groups")) group.path("rules").forEach(rules::add);
        return rules;
    }

    /** The active alerts (pending and firing): {@code data.alerts}. */
    public JsonNode alerts() throws IOException, InterruptedException {
        return get("/api/v1/alerts").path("data").path("alerts");
    }

    private JsonNode get(String pathAndQuery) throws IOException, InterruptedException {
        HttpResponse<String> r = http.send(HttpRequest.newBuilder(URI.create(base() + pathAndQuery)).timeout(Duration.ofSeconds(10)).build(),
                HttpResponse.BodyHandlers.ofString());
        JsonNode answer = JSON.readTree(r.body());
        if (r.statusCode() != 200 || !"success".equals(answer.path("status").asText())) {
            throw new AssertionError("prometheus answered " + r.statusCode() + " to " + pathAndQuery + ": " + r.body());
        }
        return answer;
    }

    private String base() {
        return "http://127.0.0.1:" + port;
    }

    public String logText() {
        try {
            return new String(Files.readAllBytes(log), StandardCharsets.UTF_8);
        } catch (IOException e) {
            return "(no log: " + e + ")";
        }
    }

    @Override
    public void close() throws InterruptedException {
        process.destroy();
        if (!process.waitFor(20, TimeUnit.SECONDS)) {
            process.destroyForcibly();
            process.waitFor(10, TimeUnit.SECONDS);
        }
    }
}
