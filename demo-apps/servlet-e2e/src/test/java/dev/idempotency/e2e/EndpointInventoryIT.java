package dev.idempotency.e2e;

import dev.idempotency.e2e.scenarios.LegacyScenarios;
import dev.idempotency.e2e.scenarios.ServerScenarios;
import dev.idempotency.e2e.servers.JettyServer;
import dev.idempotency.e2e.servers.OrdersServers;
import dev.idempotency.e2e.servers.ServerProcess;
import dev.idempotency.e2e.servers.TomcatServer;
import dev.idempotency.e2e.support.AgentFigures;
import dev.idempotency.e2e.support.AgentTool;
import dev.idempotency.e2e.support.E2eEnvironment;
import dev.idempotency.store.testing.Await;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;

import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The endpoint inventory on stock servers: the legacy shop (servlets behind filters) and the JAX-RS orders service
 * (Jersey 2 behind its servlet), on Tomcat 9 (Servlet 4) and Jetty 9.4 (Servlet 3.1). Each plays a known number of
 * requests without a key, with new keys, replays, 422s and 400s where {@code required} asks for a key, then reads the
 * table with the operator's tool ({@code endpoints PID} through the attach API, and {@code endpoints --metrics URL}):
 * its counts must equal the requests played, and the {@code required} entry with a typo must be reported, in the table
 * and as a WARN line.
 */
public class EndpointInventoryIT {
    /** The columns of the table's rows that are counts: KEYED, UNKEYED, REPLAYED, 409, 422, 400-MISSING. */
    private static final List<String> COUNTS = Arrays.asList("KEYED", "UNKEYED", "REPLAYED", "409", "422", "400-MISSING");

    abstract static class LegacyShop extends ServerScenarios {
        @Override
        protected ServerProcess configure(ServerProcess server) {
            return server.set("idempotency.required", "/shop/plain-transfers,/shop/tranfsers/**")
                    .set("idempotency.application-filters", LegacyScenarios.ACTION_FILTER)
                    .set("idempotency.metrics.port", String.valueOf(metricsPort));
        }

        private final int metricsPort = port();

        @Test
        public void theTableCountsEveryRequestPlayedAndReportsTheTypo() throws Exception {
            String body = "from=A&to=B&amount=125";
            for (int i = 0; i < 3; i++) assertEquals(201, form("/transfers", null, body).statusCode());
            String key = key();
            assertEquals(201, form("/transfers", key, body).statusCode());
            assertEquals(201, form("/transfers", key(), body).statusCode());
            assertEquals("true", form("/transfers", key, body).headers().firstValue("Idempotent-Replayed").orElse(null));
            assertProblem(form("/transfers", key, body.replace("125", "126")), 422, "key-reused");
            for (int i = 0; i < 2; i++) assertProblem(form("/plain-transfers", null, body), 400, "key-missing");
            assertEquals(201, form("/plain-transfers", key(), body).statusCode());
            // the shop's action framework, a filter that answers itself: an endpoint by its URL patterns
            for (int i = 0; i < 2; i++) assertEquals(201, form("/actions/pay", null, "amount=5").statusCode());
            assertEquals(201, form("/actions/pay", key(), "amount=5").statusCode());

            Map<String, Map<String, String>> table = table(server, metricsPort,
                    "'/shop/tranfsers/**' matches no endpoint", "/shop/tranfsers/**");
            assertCounts(table, "/shop POST /transfers", 4, 3, 1, 0, 1, 0);
            assertEquals("no", table.get("/shop POST /transfers").get("REQUIRED"));
            assertEquals("unkeyed requests", table.get("/shop POST /transfers").get("NOTE"));
            assertCounts(table, "/shop POST /plain-transfers", 1, 2, 0, 0, 0, 2);
            assertEquals("path", table.get("/shop POST /plain-transfers").get("REQUIRED"));
            assertCounts(table, "/shop POST /actions/*", 1, 2, 0, 0, 0, 0);
            assertEquals("filter", table.get("/shop POST /actions/*").get("KIND"));
            // a mapping no handled request reached is listed, without a method
            assertEquals("never requested", table.get("/shop - /signup").get("NOTE"));
        }

        private HttpResponse<byte[]> form(String path, String key, String body) throws Exception {
            HttpRequest.Builder r = client.request(path).header("Content-Type", "application/x-www-form-urlencoded")
                    .POST(HttpRequest.BodyPublishers.ofString(body, StandardCharsets.UTF_8));
            if (key != null) r.header("Idempotency-Key", key);
            return client.send(r);
        }
    }

    abstract static class JaxrsOrders extends ServerScenarios {
        private final int metricsPort = port();

        @Override
        protected ServerProcess configure(ServerProcess server) {
            return server.set("idempotency.required", "POST /refunds/{id},POST /refund/{id}")
                    .set("idempotency.metrics.port", String.valueOf(metricsPort));
        }

        @Test
        public void theTableCountsEveryRequestPlayedByRouteAndReportsTheTypo() throws Exception {
            for (int i = 0; i < 3; i++) assertEquals(201, pay("o-" + i, null, 1).statusCode());
            String key = key();
            assertEquals(201, pay("o-7", key, 1).statusCode());
            assertEquals(201, pay("o-8", key(), 1).statusCode());
            assertEquals("true", pay("o-7", key, 1).headers().firstValue("Idempotent-Replayed").orElse(null));
            assertProblem(pay("o-7", key, 2), 422, "key-reused");
            assertProblem(client.send(client.request("/api/refunds/pay_9").POST(HttpRequest.BodyPublishers.ofString("{}"))), 400,
                    "key-missing");

            Map<String, Map<String, String>> table = table(server, metricsPort,
                    "'POST /refund/{id}' matches no endpoint", "POST /refund/{id}");
            assertCounts(table, "/shop/api POST /orders/{id}/payments", 4, 3, 1, 0, 1, 0);
            assertEquals("unkeyed requests", table.get("/shop/api POST /orders/{id}/payments").get("NOTE"));
            assertCounts(table, "/shop/api POST /refunds/{id}", 0, 1, 0, 0, 0, 1);
            assertEquals("route", table.get("/shop/api POST /refunds/{id}").get("REQUIRED"));
            assertTrue(table.keySet().stream().noneMatch(k -> k.contains("o-7") || k.contains("pay_9")), "never a raw path: "
                    + table.keySet());
        }

        private HttpResponse<byte[]> pay(String order, String key, int amount) throws Exception {
            HttpRequest.Builder r = client.request("/api/orders/" + order + "/payments").header("Content-Type", "application/json")
                    .POST(HttpRequest.BodyPublishers.ofString("{\"amount\":" + amount + "}"));
            if (key != null) r.header("Idempotency-Key", key);
            return client.send(r);
        }
    }

    @Nested
    class LegacyTomcat9 extends LegacyShop {
        @Override
        protected ServerProcess server() throws Exception {
            return TomcatServer.legacyTomcat9();
        }
    }

    @Nested
    class LegacyJetty94 extends LegacyShop {
        @Override
        protected ServerProcess server() throws Exception {
            return new JettyServer(E2eEnvironment.jetty94(), E2eEnvironment.war("legacy-javax.war"), "--add-to-start=http,deploy");
        }
    }

    @Nested
    class OrdersTomcat9 extends JaxrsOrders {
        @Override
        protected ServerProcess server() throws Exception {
            return OrdersServers.onTomcat(E2eEnvironment.tomcat9(), "orders-jersey2.war");
        }
    }

    @Nested
    class OrdersJetty94 extends JaxrsOrders {
        @Override
        protected ServerProcess server() throws Exception {
            return new JettyServer(E2eEnvironment.jetty94(), E2eEnvironment.war("orders-jersey2.war"),
                    "--add-to-start=http,deploy,annotations")
                    .application("/shop", "/api/counters");
        }
    }

    private static int port() {
        try {
            return AgentFigures.freePort();
        } catch (java.io.IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
    }

    /**
     * The table as {@code endpoints PID} prints it, by "APPLICATION METHOD ENDPOINT", after checking that
     * {@code endpoints --metrics URL} prints the same rows, that both exit 1 naming {@code unmatched}, and that the
     * agent logged {@code warning} once.
     */
    static Map<String, Map<String, String>> table(ServerProcess server, int metricsPort, String warning, String unmatched)
            throws Exception {
        AgentTool.Result byPid = AgentTool.run("endpoints", String.valueOf(server.pid()));
        assertEquals(1, byPid.exit, "a required entry matches nothing: " + byPid);
        assertTrue(byPid.out.contains("  " + unmatched + "  <- UNMATCHED"), byPid.toString());
        AgentTool.Result byMetrics = AgentTool.run("endpoints", "--metrics", "http://127.0.0.1:" + metricsPort + "/metrics");
        assertEquals(1, byMetrics.exit, byMetrics.toString());
        assertTrue(byMetrics.out.contains("  " + unmatched + "  <- UNMATCHED"), byMetrics.toString());
        Map<String, Map<String, String>> rows = parse(byPid.out);
        Map<String, Map<String, String>> scraped = parse(byMetrics.out);
        for (Map.Entry<String, Map<String, String>> row : rows.entrySet()) {
            if (row.getKey().contains(" - ")) continue; // declared mappings: the metrics show only counted endpoints' labels too
            for (String column : COUNTS) {
                assertEquals(row.getValue().get(column), scraped.get(row.getKey()).get(column), row.getKey() + " " + column
                        + "\n" + byPid.out + "\n" + byMetrics.out);
            }
        }
        Files.writeString(E2eEnvironment.work().resolve("endpoints-" + server.pid() + ".txt"), byPid.out);
        System.out.println("$ java -jar idempotency-agent.jar endpoints " + server.pid() + "\n" + byPid.out);
        String lines = Await.until("the WARN line about " + unmatched, Duration.ofSeconds(20), () -> {
            try {
                return server.agentLines();
            } catch (java.io.IOException e) {
                throw new java.io.UncheckedIOException(e);
            }
        }, l -> l.contains(warning));
        assertEquals(1, lines.split(java.util.regex.Pattern.quote(warning), -1).length - 1, lines);
        assertTrue(lines.contains("WARN"), lines);
        return rows;
    }

    /** The table's rows by "APPLICATION METHOD ENDPOINT", each column by its heading (cells hold no double space). */
    static Map<String, Map<String, String>> parse(String out) {
        String[] lines = out.split("\n");
        String[] names = lines[0].trim().split("\\s{2,}");
        Map<String, Map<String, String>> rows = new TreeMap<>();
        for (int l = 1; l < lines.length && !lines[l].startsWith("("); l++) {
            String[] cells = lines[l].trim().split("\\s{2,}");
            Map<String, String> row = new TreeMap<>();
            for (int i = 0; i < names.length; i++) row.put(names[i], i < cells.length ? cells[i] : "");
            rows.put(row.get("APPLICATION") + " " + row.get("METHOD") + " " + row.get("ENDPOINT"), row);
        }
        return rows;
    }

    static void assertCounts(Map<String, Map<String, String>> table, String endpoint, long... expected) {
        Map<String, String> row = table.get(endpoint);
        assertTrue(row != null, endpoint + " missing from " + table.keySet());
        for (int i = 0; i < COUNTS.size(); i++) {
            assertEquals(String.valueOf(expected[i]), row.get(COUNTS.get(i)), endpoint + " " + COUNTS.get(i) + ": " + row);
        }
    }
}
