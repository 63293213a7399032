package dev.idempotency.agent.core.cli;

import dev.idempotency.agent.core.protocol.RequiredEndpoints;
import dev.idempotency.agent.core.telemetry.AgentMetrics;
import dev.idempotency.agent.core.telemetry.EndpointInventory;
import dev.idempotency.agent.core.telemetry.Outcome;
import dev.idempotency.agent.core.telemetry.Telemetry;
import org.junit.jupiter.api.Test;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.Collections;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The endpoint figures survive the Prometheus text format (label values escaped, then read back by
 * {@code endpoints --metrics}) and the table says which endpoints take requests without a key.
 */
class EndpointsCommandTest {

    private static AgentMetrics figures() {
        EndpointInventory inventory = new EndpointInventory(RequiredEndpoints.parse("/shop/tranfsers,POST /orders/{id}"), 10, 100);
        EndpointInventory.Application shop = inventory.register("/shop", () -> Arrays.asList(
                new EndpointInventory.Mapping("transfers", Collections.singletonList("/transfers"), true),
                new EndpointInventory.Mapping("quoted", Collections.singletonList("/say\"hi\"\\now"), true)));
        EndpointInventory.Endpoint transfers = shop.servlet("POST", "transfers");
        transfers.keyed(Outcome.EXECUTED);
        transfers.keyed(Outcome.REPLAYED);
        transfers.keyed(Outcome.MISMATCH);
        transfers.unkeyed();
        shop.servlet("POST", "quoted").unkeyed();
        inventory.register("/shop/api", null).route("POST /orders/{id}", "/shop/api/orders/1").keyed(Outcome.IN_FLIGHT);
        AgentMetrics metrics = new AgentMetrics();
        metrics.endpointsFrom(inventory);
        return metrics;
    }

    @Test
    void labelValuesAreEscapedAndReadBack() {
        String text = Telemetry.prometheusText(figures());
        assertTrue(text.contains("endpoint=\"/say\\\"hi\\\"\\\\now\""), text);
        assertTrue(text.contains("idempotency_required_unmatched{entry=\"/shop/tranfsers\"} 1"), text);

        EndpointsCommand.Scrape scrape = EndpointsCommand.parse(text);
        assertEquals(Collections.singletonList("/shop/tranfsers"), scrape.unmatched);
        assertEquals(3, scrape.rows.size());
        String[] quoted = scrape.rows.stream().filter(r -> r[2].startsWith("/say")).findFirst().get();
        assertEquals("/say\"hi\"\\now", quoted[2]);
        String[] transfers = scrape.rows.stream().filter(r -> r[2].equals("/transfers")).findFirst().get();
        // application, method, endpoint, kind, required, keyed, unkeyed, replayed, 409, 422, 400
        assertArrayEquals(new String[] {"/shop", "POST", "/transfers", "servlet", "no", "3", "1", "1", "0", "1", "0"},
                Arrays.copyOf(transfers, 11));
        String[] orders = scrape.rows.stream().filter(r -> r[3].equals("jaxrs")).findFirst().get();
        assertArrayEquals(new String[] {"/shop/api", "POST", "/orders/{id}", "jaxrs", "yes", "1", "0", "0", "1", "0", "0"},
                Arrays.copyOf(orders, 11));
    }

    @Test
    void theTableFlagsUnkeyedEndpointsAndUnmatchedRequiredEntries() throws Exception {
        com.sun.net.httpserver.HttpServer server = com.sun.net.httpserver.HttpServer.create(
                new java.net.InetSocketAddress("127.0.0.1", 0), 0);
        byte[] body = Telemetry.prometheusText(figures()).getBytes(StandardCharsets.UTF_8);
        server.createContext("/metrics", exchange -> {
            exchange.sendResponseHeaders(200, body.length);
            exchange.getResponseBody().write(body);
            exchange.close();
        });
        server.start();
        try {
            ByteArrayOutputStream out = new ByteArrayOutputStream();
            ByteArrayOutputStream err = new ByteArrayOutputStream();
            CliConsole console = new CliConsole(new PrintStream(out, true, "UTF-8"), new PrintStream(err, true, "UTF-8"),
                    new ByteArrayInputStream(new byte[0]));
            int exit = new OperatorCli(console, new java.util.Properties(), Collections.<String, String>emptyMap(), null)
                    .run(new String[] {"endpoints", "--metrics", "http://127.0.0.1:" + server.getAddress().getPort() + "/metrics"});
            String table = new String(out.toByteArray(), StandardCharsets.UTF_8);
            assertEquals(1, exit, "a required entry that matches nothing is a problem: " + table + err);
            List<String> lines = Arrays.asList(table.split("\n"));
            assertTrue(lines.get(0).startsWith("APPLICATION"), table);
            assertTrue(lines.stream().anyMatch(l -> l.startsWith("/shop ") && l.contains("/transfers") && l.endsWith("unkeyed requests")),
                    table);
            assertTrue(lines.stream().anyMatch(l -> l.contains("/say") && l.endsWith("never keyed, unprotected")), table);
            assertTrue(lines.contains("  /shop/tranfsers  <- UNMATCHED"), table);
        } finally {
            server.stop(0);
        }
    }
}
