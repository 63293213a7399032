package dev.idempotency.agent.core.telemetry;

import org.junit.jupiter.api.Test;

import javax.management.MBeanServer;
import javax.management.ObjectName;
import java.lang.management.ManagementFactory;
import java.net.HttpURLConnection;
import java.net.ServerSocket;
import java.net.URL;
import java.util.HashMap;
import java.util.Map;
import java.util.Scanner;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The figures reach JMX and the Prometheus endpoint as counted; the endpoint speaks the text format. */
class TelemetryTest {

    @Test
    void countsReachTheMBeanAndTheEndpoint() throws Exception {
        AgentMetrics metrics = new AgentMetrics();
        int[] purged = {0};
        int port;
        try (ServerSocket free = new ServerSocket(0)) {
            port = free.getLocalPort();
        }
        Telemetry telemetry = new Telemetry(metrics, Telemetry.housekeeping(() -> ++purged[0], () -> 7), true, "127.0.0.1", port);
        for (int i = 0; i < 3; i++) metrics.count(Outcome.EXECUTED);
        metrics.count(Outcome.REPLAYED);
        metrics.completed(AgentMetrics.Completion.RECORDED);
        metrics.reserveTook(2_000_000);
        metrics.reserveTook(40_000_000);
        metrics.storeReachable(false);
        metrics.leasesExpired(2);
        metrics.leasesExpired(0);
        telemetry.start();
        telemetry.start();

        MBeanServer server = ManagementFactory.getPlatformMBeanServer();
        ObjectName name = new ObjectName(Telemetry.OBJECT_NAME);
        Map<String, Double> scraped = awaitScrape(port);
        assertTrue(server.isRegistered(name));
        assertEquals(3L, server.getAttribute(name, "RequestsExecuted"));
        assertEquals(1L, server.getAttribute(name, "RequestsReplayed"));
        assertEquals(1L, server.getAttribute(name, "CompletionsRecorded"));
        assertEquals(false, server.getAttribute(name, "StoreUp"));
        assertEquals(2L, server.getAttribute(name, "LeasesExpired"));
        assertEquals(40.0, (Double) server.getAttribute(name, "ReserveP99Millis"), 0.001);
        assertEquals(2.0, (Double) server.getAttribute(name, "ReserveP50Millis"), 0.001);
        assertEquals(1, server.invoke(name, "purgeNow", new Object[0], new String[0]));
        assertEquals(7, server.invoke(name, "sweepNow", new Object[0], new String[0]));

        assertEquals(3.0, scraped.get("idempotency_requests_total{outcome=\"executed\"}"));
        assertEquals(1.0, scraped.get("idempotency_requests_total{outcome=\"replayed\"}"));
        assertEquals(0.0, scraped.get("idempotency_requests_total{outcome=\"in_flight\"}"));
        assertEquals(0.0, scraped.get("idempotency_store_up"));
        assertEquals(2.0, scraped.get("idempotency_leases_expired_total"));
        assertEquals(2.0, scraped.get("idempotency_store_reserve_duration_seconds_count"));
        assertEquals(0.0, scraped.get("idempotency_store_reserve_duration_seconds_bucket{le=\"0.001\"}"));
        assertEquals(1.0, scraped.get("idempotency_store_reserve_duration_seconds_bucket{le=\"0.0025\"}"));
        assertEquals(2.0, scraped.get("idempotency_store_reserve_duration_seconds_bucket{le=\"0.05\"}"));
        assertEquals(2.0, scraped.get("idempotency_store_reserve_duration_seconds_bucket{le=\"+Inf\"}"));
        assertEquals(0.042, scraped.get("idempotency_store_reserve_duration_seconds_sum"), 1e-9);
        server.unregisterMBean(name);
    }

    /** The endpoint starts on the agent's thread: poll until it answers, then parse every sample line. */
    static Map<String, Double> awaitScrape(int port) throws Exception {
        long deadline = System.nanoTime() + 10_000_000_000L;
        while (true) {
            try {
                HttpURLConnection c = (HttpURLConnection) new URL("http://127.0.0.1:" + port + "/metrics").openConnection();
                assertEquals(200, c.getResponseCode());
                assertTrue(c.getContentType().startsWith("text/plain; version=0.0.4"), c.getContentType());
                Map<String, Double> samples = new HashMap<>();
                try (Scanner lines = new Scanner(c.getInputStream(), "UTF-8")) {
                    while (lines.hasNextLine()) {
                        String line = lines.nextLine();
                        if (line.startsWith("#") || line.isEmpty()) continue;
                        int space = line.lastIndexOf(' ');
                        samples.put(line.substring(0, space), Double.parseDouble(line.substring(space + 1)));
                    }
                }
                return samples;
            } catch (java.net.ConnectException notYet) {
                if (System.nanoTime() > deadline) throw notYet;
                Thread.onSpinWait();
            }
        }
    }
}
