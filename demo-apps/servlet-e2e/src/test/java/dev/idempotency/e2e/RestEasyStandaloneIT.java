package dev.idempotency.e2e;

import dev.idempotency.e2e.support.E2eEnvironment;
import dev.idempotency.e2e.servers.JarServer;
import dev.idempotency.e2e.servers.ServerProcess;
import dev.idempotency.e2e.scenarios.StandaloneJaxrsScenarios;
import dev.idempotency.store.testing.Await;
import org.junit.jupiter.api.Test;

import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.Collections;
import java.util.UUID;

import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * RESTEasy 6 on its container for the JDK HttpServer, an executable jar with no servlet container: the JAX-RS layer
 * runs the protocol itself. That container reads a property it lacks from the exchange's attributes, which the JDK
 * shares between all requests of a context: every scenario here after the first would see the first's state.
 */
public class RestEasyStandaloneIT extends StandaloneJaxrsScenarios {
    @Override
    protected ServerProcess server() throws Exception {
        return new JarServer("resteasy-standalone", E2eEnvironment.war("orders-resteasy-standalone.jar"), Collections.singletonList("{port}"))
                .application("", "/api/counters");
    }

    @Test
    public void aSuspendedResourceAnswered204AtOnceIsReplayedAndItsWorkRunsOnce() throws Exception {
        long jobs = client.count("job");
        String key = key();
        String ticket = UUID.randomUUID().toString();
        HttpResponse<byte[]> first = client.send(client.request("/api/jobs?ticket=" + ticket).header("Idempotency-Key", key)
                .POST(HttpRequest.BodyPublishers.noBody()));
        assertEquals(204, first.statusCode(), "the container's own answer to a suspended resource");
        assertReplayOf(first, client.send(client.request("/api/jobs?ticket=" + ticket).header("Idempotency-Key", key)
                .POST(HttpRequest.BodyPublishers.noBody())));
        client.send(client.request("/api/jobs/release?ticket=" + ticket).POST(HttpRequest.BodyPublishers.noBody()));
        Await.until("the job to finish", Duration.ofSeconds(15), () -> jobState(ticket), "done"::equals);
        assertReplayOf(first, client.send(client.request("/api/jobs?ticket=" + ticket).header("Idempotency-Key", key)
                .POST(HttpRequest.BodyPublishers.noBody())));
        assertEquals(jobs + 1, client.count("job"), "the work ran once");
    }
}
