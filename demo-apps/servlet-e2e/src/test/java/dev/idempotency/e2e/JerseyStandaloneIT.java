package dev.idempotency.e2e;

import dev.idempotency.e2e.support.E2eEnvironment;
import dev.idempotency.e2e.servers.JarServer;
import dev.idempotency.e2e.servers.ServerProcess;
import dev.idempotency.e2e.scenarios.StandaloneJaxrsScenarios;
import dev.idempotency.store.testing.Await;

import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.Collections;
import java.util.concurrent.CompletableFuture;

import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Jersey 3 on the JDK HttpServer, an executable jar with no servlet container: the JAX-RS layer runs the protocol itself.
 * With a 1 s lease, so that a request running past ten leases shows it never loses its key.
 */
public class JerseyStandaloneIT extends StandaloneJaxrsScenarios {
    @Override
    protected ServerProcess server() throws Exception {
        return new JarServer("jersey-standalone", E2eEnvironment.war("orders-jersey3-standalone.jar"), Collections.singletonList("{port}"))
                .application("", "/api/counters");
    }

    @Override
    protected ServerProcess configure(ServerProcess server) {
        return super.configure(server).set("idempotency.lease", "1s");
    }

    private HttpRequest.Builder slowPayment(String key, long delayMillis) {
        HttpRequest.Builder r = client.request("/api/orders/o-long/payments").header("Idempotency-Key", key)
                .header("Content-Type", "application/json").POST(HttpRequest.BodyPublishers.ofString("{\"amount\":42}"));
        return delayMillis > 0 ? r.header("X-Delay-Ms", String.valueOf(delayMillis)) : r;
    }

    @Test
    public void aResourceRunningPastTenLeasesKeepsItsKey() throws Exception {
        long payments = client.count("payment");
        String key = key();
        CompletableFuture<HttpResponse<byte[]>> slow = client.sendAsync(slowPayment(key, 13_000));
        // the resource records the payment, then takes its time: probe only once it is inside
        Await.until("the resource to record the payment", Duration.ofSeconds(30), () -> {
            try {
                return client.count("payment");
            } catch (Exception e) {
                throw new IllegalStateException(e);
            }
        }, n -> n == payments + 1);
        int probes = 0;
        while (!slow.isDone()) {
            HttpResponse<byte[]> duplicate = client.send(slowPayment(key, 0));
            if (slow.isDone() && duplicate.statusCode() != 409) break; // the first finished between the check and the probe
            assertProblem(duplicate, 409, "request-in-progress");
            probes++;
            Thread.sleep(500); // spacing the probes over more than ten leases is the point here, not synchronisation
        }
        HttpResponse<byte[]> first = slow.get();
        assertEquals(201, first.statusCode(), text(first));
        assertTrue(probes >= 16, "probed across the whole run: " + probes);
        assertArrayEquals(first.body(), client.send(slowPayment(key, 0)).body());
        assertEquals(payments + 1, client.count("payment"));
    }
}
