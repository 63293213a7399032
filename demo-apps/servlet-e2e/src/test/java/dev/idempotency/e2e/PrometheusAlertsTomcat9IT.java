package dev.idempotency.e2e;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.idempotency.e2e.servers.ServerProcess;
import dev.idempotency.e2e.servers.TomcatServer;
import dev.idempotency.e2e.support.Client;
import dev.idempotency.e2e.support.E2eEnvironment;
import dev.idempotency.e2e.support.Monitoring;
import dev.idempotency.e2e.support.PrometheusServer;
import dev.idempotency.store.testing.TcpProxy;
import dev.idempotency.store.testing.TestDatabase;
import org.junit.jupiter.api.Test;

import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static dev.idempotency.e2e.scenarios.ServerScenarios.assertProblem;
import static dev.idempotency.e2e.scenarios.ServerScenarios.key;
import static dev.idempotency.e2e.scenarios.ServerScenarios.text;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The shipped alerting rules and Grafana dashboard (docs/monitoring) against a real Prometheus: it scrapes a Tomcat 9
 * with the agent (PostgreSQL store, reached through a TCP proxy the test can cut) every second and evaluates the
 * shipped rules every second (their {@code for:} shortened to 1 s; the expressions are the shipped ones). After a
 * scenario of keyed requests, every dashboard query and every alert expression returns data and no alert fires; with
 * the store cut off, the store-down and the 503 alerts fire.
 */
public class PrometheusAlertsTomcat9IT {
    private static final long DEADLINE_SECONDS = 30;
    private static final Pattern LABEL_VALUES = Pattern.compile("^label_values\\((.+),\\s*(\\w+)\\)$");

    @Test
    public void everyDashboardQueryAndAlertHasDataAndTheStoreDownAlertFires() throws Exception {
        java.nio.file.Path binary = Monitoring.tool("prometheus");
        String shipped = Monitoring.read(Monitoring.RULES);
        Map<String, String> alerts = Monitoring.alerts(shipped);
        String rules = Monitoring.withFor(shipped, "1s");
        assertEquals(alerts, Monitoring.alerts(rules), "only for: is changed, never an expression");
        assertTrue(!rules.equals(shipped), "the copy's for: is shortened");

        TestDatabase db = TestDatabase.postgres();
        int metricsPort = ServerProcess.freePort();
        try (TcpProxy proxy = new TcpProxy(db.hostAndPort());
             ServerProcess tomcat = TomcatServer.tomcat9()
                     .set("idempotency.store.url", db.viaPort("127.0.0.1", proxy.port()))
                     .set("idempotency.store.table", "e2e_prom_" + Long.toHexString(System.nanoTime()))
                     .set("idempotency.store.connect-timeout", "1s")
                     .set("idempotency.metrics.port", String.valueOf(metricsPort))) {
            if (db.user != null) tomcat.set("idempotency.store.user", db.user).set("idempotency.store.password", db.password);
            tomcat.start();
            Client client = new Client(tomcat.baseUrl());
            try (PrometheusServer prometheus = PrometheusServer.start(binary,
                    E2eEnvironment.work().resolve("prometheus-" + Long.toHexString(System.nanoTime())), metricsPort, rules)) {
                String instance = "127.0.0.1:" + metricsPort;
                await("Prometheus to scrape the agent", () -> !prometheus.query("up{job=\"" + PrometheusServer.JOB + "\"} == 1").isEmpty(), prometheus);

                playScenario(client);

                Map<String, String> queries = new LinkedHashMap<>(dashboardQueries());
                alerts.forEach((name, expression) -> queries.put("alert " + name, Monitoring.asBool(expression)));
                List<String> empty = new ArrayList<>(queries.keySet());
                await("every dashboard query and alert expression to return data", () -> {
                    for (java.util.Iterator<String> it = empty.iterator(); it.hasNext(); ) {
                        if (!prometheus.query(queries.get(it.next())).isEmpty()) it.remove();
                    }
                    return empty.isEmpty();
                }, prometheus, () -> "no data for: " + describe(empty, queries));

                // every metric the agent serves is on the dashboard
                String dashboardText = String.join("\n", dashboardQueries().values());
                List<String> offDashboard = new ArrayList<>();
                for (JsonNode name : prometheus.query("count by (__name__) ({job=\"" + PrometheusServer.JOB + "\",__name__=~\"idempotency_.*\"})")) {
                    String metric = name.path("metric").path("__name__").asText().replaceAll("_(bucket|sum|count)$", "");
                    if (!dashboardText.contains(metric) && !offDashboard.contains(metric)) offDashboard.add(metric);
                }
                assertTrue(offDashboard.isEmpty(), "metrics no dashboard panel shows: " + offDashboard);

                // Prometheus evaluates every shipped rule without error, and none fires on a healthy scenario
                await("every rule to be evaluated without error", () -> {
                    List<JsonNode> loaded = prometheus.rules();
                    return loaded.size() == alerts.size() && loaded.stream().allMatch(r -> "ok".equals(r.path("health").asText()));
                }, prometheus, () -> safe(prometheus::rules));
                for (JsonNode rule : prometheus.rules()) assertTrue(alerts.containsKey(rule.path("name").asText()), rule.toString());
                assertTrue(firing(prometheus.alerts()).isEmpty(), "firing on a healthy scenario: " + prometheus.alerts());

                long charges = client.count("charge");
                proxy.cut();
                for (int i = 0; i < 3; i++) assertProblem(client.postJson("/payments", key(), "{\"amount\":7}"), 503, "store-unavailable");
                assertEquals(charges, client.count("charge"), "fail closed: nothing ran");
                await("the store-down and 503 alerts to fire for " + instance, () -> {
                    List<String> firing = firing(prometheus.alerts(), instance);
                    return firing.contains("IdempotencyStoreDown") && firing.contains("IdempotencyStoreUnavailableRequests");
                }, prometheus, () -> safe(prometheus::alerts));
            }
        }
    }

    /** New keys, their retries (replayed), a key reused for another payload (422), a duplicate of a running request (409). */
    private static void playScenario(Client client) throws Exception {
        List<String> keys = new ArrayList<>();
        for (int i = 0; i < 3; i++) {
            keys.add(key());
            HttpResponse<byte[]> created = client.postJson("/payments", keys.get(i), "{\"amount\":" + (i + 1) + "}");
            assertEquals(201, created.statusCode(), text(created));
        }
        for (int i = 0; i < 2; i++) {
            assertEquals("true", client.postJson("/payments", keys.get(i), "{\"amount\":" + (i + 1) + "}")
                    .headers().firstValue("Idempotent-Replayed").orElse(null));
        }
        assertProblem(client.postJson("/payments", keys.get(2), "{\"amount\":99}"), 422, "key-reused");
        long charges = client.count("charge");
        String slowKey = key();
        CompletableFuture<HttpResponse<byte[]>> slow = client.sendAsync(client.request("/payments").header("Idempotency-Key", slowKey)
                .header("X-Delay-Ms", "1500").header("Content-Type", "application/json").POST(HttpRequest.BodyPublishers.ofString("{\"amount\":5}")));
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (client.count("charge") == charges) { // the slow request runs, holding its key
            assertTrue(System.nanoTime() < deadline, "the slow request did not charge in 10 s");
            Thread.sleep(20);
        }
        HttpResponse<byte[]> duplicate = client.postJson("/payments", slowKey, "{\"amount\":5}");
        assertProblem(duplicate, 409, "request-in-progress");
        assertEquals(201, slow.get(30, TimeUnit.SECONDS).statusCode());
        assertEquals(201, client.postJson("/payments", null, "{\"amount\":6}").statusCode(), "a request without a key");
    }

    /** Every panel query and the instance variable's query of the shipped dashboard, as Grafana would send them. */
    private static Map<String, String> dashboardQueries() throws Exception {
        JsonNode dashboard = new ObjectMapper().readTree(Monitoring.read(Monitoring.DASHBOARD));
        Map<String, String> queries = new LinkedHashMap<>();
        for (JsonNode panel : dashboard.path("panels")) {
            for (JsonNode target : panel.path("targets")) {
                queries.put("panel '" + panel.path("title").asText() + "' " + target.path("refId").asText(),
                        target.path("expr").asText().replace("$instance", ".*").replace("$__rate_interval", "1m"));
            }
        }
        for (JsonNode variable : dashboard.path("templating").path("list")) {
            Matcher m = LABEL_VALUES.matcher(variable.path("query").path("query").asText());
            assertTrue(m.matches(), "a label_values() variable: " + variable);
            queries.put("variable " + variable.path("name").asText(), "count by (" + m.group(2) + ") (" + m.group(1) + ")");
        }
        assertTrue(queries.size() > 10, queries.toString());
        return queries;
    }

    private static List<String> firing(JsonNode alerts) {
        return firing(alerts, null);
    }

    private static List<String> firing(JsonNode alerts, String instance) {
        List<String> names = new ArrayList<>();
        for (JsonNode alert : alerts) {
            if (!"firing".equals(alert.path("state").asText())) continue;
            if (instance != null && !instance.equals(alert.path("labels").path("instance").asText())) continue;
            names.add(alert.path("labels").path("alertname").asText());
        }
        return names;
    }

    private static String describe(List<String> names, Map<String, String> queries) {
        StringBuilder out = new StringBuilder();
        for (String name : names) out.append("\n  ").append(name).append(": ").append(queries.get(name));
        return out.toString();
    }

    private interface Probe {
        boolean holds() throws Exception;
    }

    private interface Source {
        Object get() throws Exception;
    }

    private static String safe(Source source) {
        try {
            return String.valueOf(source.get());
        } catch (Exception e) {
            return e.toString();
        }
    }

    private static void await(String what, Probe probe, PrometheusServer prometheus) throws Exception {
        await(what, probe, prometheus, () -> "");
    }

    /** Polls every 250 ms until the probe holds; the failure says what was awaited, {@code last}, and Prometheus's log. */
    private static void await(String what, Probe probe, PrometheusServer prometheus, java.util.function.Supplier<String> last) throws Exception {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(DEADLINE_SECONDS);
        while (System.nanoTime() < deadline) {
            if (probe.holds()) return;
            Thread.sleep(250);
        }
        throw new AssertionError("timed out after " + DEADLINE_SECONDS + " s awaiting " + what + ": " + last.get()
                + "\nprometheus log:\n" + prometheus.logText());
    }
}
