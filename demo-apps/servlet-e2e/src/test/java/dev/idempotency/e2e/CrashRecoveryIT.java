package dev.idempotency.e2e;

import dev.idempotency.e2e.support.AgentFigures;
import dev.idempotency.e2e.support.Client;
import dev.idempotency.e2e.scenarios.PaymentsScenarios;
import dev.idempotency.e2e.servers.ServerProcess;
import dev.idempotency.e2e.servers.TomcatServer;
import dev.idempotency.store.testing.Await;
import org.junit.jupiter.api.Test;

import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.UUID;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * A server killed with SIGKILL in the middle of a keyed request, restarted, and asked again. With a 2 s lease:
 * under reconcile the application never runs a second time; under retry it runs exactly once more.
 */
public class CrashRecoveryIT {
    private static final String BODY = "{\"amount\":777}";

    private static HttpRequest.Builder payment(Client client, String key, boolean slow) {
        HttpRequest.Builder r = client.request("/payments").header("Idempotency-Key", key).header("Content-Type", "application/json")
                .POST(HttpRequest.BodyPublishers.ofString(BODY));
        return slow ? r.header("X-Delay-Ms", "60000") : r;
    }

    /** Starts a slow keyed request, waits until the application has charged, kills the server, starts it again. */
    private static long crashMidRequest(ServerProcess server, Client client, String key) throws Exception {
        long before = client.count("charge");
        client.sendAsync(payment(client, key, true));
        awaitCharges(client, before + 1);
        server.kill();
        server.start();
        return before + 1;
    }

    /** Waits until the application's ledger shows the charge: the request is inside the application now. */
    private static void awaitCharges(Client client, long charges) {
        Await.until("the application to charge", Duration.ofSeconds(30), () -> {
            try {
                return client.count("charge");
            } catch (Exception e) {
                throw new IllegalStateException(e);
            }
        }, n -> n == charges);
    }

    private static HttpResponse<byte[]> send(Client client, HttpRequest.Builder request) {
        try {
            return client.send(request);
        } catch (Exception e) {
            throw new IllegalStateException(e);
        }
    }

    @Test
    public void underReconcileACrashedRequestIsNeverRunAgain() throws Exception {
        int jmxPort = ServerProcess.freePort();
        int metricsPort = ServerProcess.freePort();
        try (ServerProcess server = AgentFigures.observable(TomcatServer.tomcat9().set("idempotency.lease", "2s")
                .set("idempotency.sweep-interval", "1s"), jmxPort, metricsPort)) {
            server.start();
            Client client = new Client(server.baseUrl());
            String key = UUID.randomUUID().toString();
            long charges = crashMidRequest(server, client, key);

            // the restarted agent's sweep finds the lease that ran out, before any retry: an operator's alert sees it
            try (AgentFigures figures = new AgentFigures(jmxPort, metricsPort)) {
                Await.until("the sweep to count the expired lease", Duration.ofSeconds(30), () -> {
                    try {
                        return figures.scrape().get("idempotency_leases_expired_total");
                    } catch (Exception e) {
                        throw new IllegalStateException(e);
                    }
                }, n -> n != null && n >= 1);
                assertEquals(1.0, figures.scrape().get("idempotency_leases_expired_total"), "one key lost its lease");
                assertEquals(1L, figures.counter("LeasesExpired"));
            }
            HttpResponse<byte[]> answer = Await.until("the expired lease to be reported", Duration.ofSeconds(30),
                    () -> send(client, payment(client, key, false)), r -> r.statusCode() != 409 || PaymentsScenarios.text(r).contains("outcome-unknown"));
            PaymentsScenarios.assertProblem(answer, 409, "outcome-unknown");
            PaymentsScenarios.assertProblem(send(client, payment(client, key, false)), 409, "outcome-unknown");
            assertEquals(charges, client.count("charge"), "no blind re-execution after a crash");
        }
    }

    @Test
    public void underRetryACrashedRequestRunsExactlyOnceMore() throws Exception {
        try (ServerProcess server = TomcatServer.tomcat9().set("idempotency.lease", "2s").set("idempotency.on-expired-lease", "retry")) {
            server.start();
            Client client = new Client(server.baseUrl());
            String key = UUID.randomUUID().toString();
            long charges = crashMidRequest(server, client, key);

            HttpResponse<byte[]> rerun = Await.until("the expired lease to be taken over", Duration.ofSeconds(30),
                    () -> send(client, payment(client, key, false)), r -> r.statusCode() != 409);
            assertEquals(201, rerun.statusCode(), PaymentsScenarios.text(rerun));
            assertEquals(charges + 1, client.count("charge"), "exactly one more execution");
            HttpResponse<byte[]> replay = send(client, payment(client, key, false));
            assertEquals("true", replay.headers().firstValue("Idempotent-Replayed").orElse(null));
            assertArrayEquals(rerun.body(), replay.body());
            assertEquals(charges + 1, client.count("charge"));
        }
    }

    /**
     * SIGTERM while a keyed request is inside the application: the container finishes it during its graceful stop,
     * and the embedded H2 store is still open to record it (H2's own exit hook would have closed it at once).
     */
    @Test
    public void aRequestFinishingDuringAGracefulShutdownIsStillRecorded() throws Exception {
        try (ServerProcess server = TomcatServer.tomcat9()) {
            server.start();
            Client client = new Client(server.baseUrl());
            String key = UUID.randomUUID().toString();
            long before = client.count("charge");
            var inFlight = client.sendAsync(payment(client, key, false).header("X-Delay-Ms", "1000"));
            awaitCharges(client, before + 1);
            server.stop();
            HttpResponse<byte[]> first = inFlight.get();
            assertEquals(201, first.statusCode(), "the container finished the request while stopping: " + PaymentsScenarios.text(first));
            server.start();
            HttpResponse<byte[]> replay = send(client, payment(client, key, false));
            assertEquals("true", replay.headers().firstValue("Idempotent-Replayed").orElse(null), PaymentsScenarios.text(replay));
            assertArrayEquals(first.body(), replay.body());
            assertEquals(before + 1, client.count("charge"));
        }
    }

    @Test
    public void aSlowRequestKeepsItsKeyLongPastItsLease() throws Exception {
        try (ServerProcess server = TomcatServer.tomcat9().set("idempotency.lease", "1s")) {
            server.start();
            Client client = new Client(server.baseUrl());
            String key = UUID.randomUUID().toString();
            long before = client.count("charge");
            var slow = client.sendAsync(payment(client, key, false).header("X-Delay-Ms", "4000"));
            awaitCharges(client, before + 1);
            // Well past several lease lengths the heartbeat still holds the key: duplicates conflict, nothing expires.
            for (int i = 0; i < 3; i++) {
                HttpResponse<byte[]> duplicate = send(client, payment(client, key, false));
                if (slow.isDone()) break;
                PaymentsScenarios.assertProblem(duplicate, 409, "request-in-progress");
                Thread.sleep(1000); // spacing the probes over several leases is the point here, not synchronisation
            }
            HttpResponse<byte[]> first = slow.get();
            assertEquals(201, first.statusCode());
            HttpResponse<byte[]> replay = send(client, payment(client, key, false));
            assertArrayEquals(first.body(), replay.body());
            assertEquals(before + 1, client.count("charge"));
        }
    }
}
