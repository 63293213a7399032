package dev.idempotency.e2e.scenarios;

import dev.idempotency.e2e.support.Client;
import dev.idempotency.e2e.servers.ServerProcess;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.TestMethodOrder;

import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.function.Supplier;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * One server per test class, started once, and the checks every scenario suite shares. The demo applications count
 * their own side effects, so "ran exactly once" is read from the application, not from the agent.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
public abstract class ServerScenarios {
    public static final String PROBLEM = "urn:idempotency-agent:problem:";
    protected ServerProcess server;
    protected Client client;

    /** The server under test, configured but not started. */
    protected abstract ServerProcess server() throws Exception;

    /**
     * Whether another row proves already that a replay survives a restart of the same server and store (one on
     * another JDK, say): its restart test is then left out, for the suite's time.
     */
    protected boolean restartProvenByAnotherRow() {
        return false;
    }

    /** Settings every server of the suite gets on top of its own. */
    protected ServerProcess configure(ServerProcess server) {
        return server;
    }

    /** Where the application counts its side effects, relative to its base URL. */
    protected String countersPath() {
        return "/counters";
    }

    @BeforeAll
    public void startServer() throws Exception {
        server = configure(server());
        server.start();
        client = new Client(server.baseUrl(), countersPath());
    }

    @AfterAll
    public void stopServer() throws Exception {
        if (server != null) server.close();
    }

    @Test
    @Order(1)
    public void theAgentAnnouncesItselfAtStartUpWithoutErrors() throws Exception {
        String lines = server.agentLines();
        assertTrue(lines.contains("INFO started idempotency-agent"), lines);
        assertFalse(lines.contains("ERROR"), lines);
        // nothing the agent met while the server started is left unprotected, or said to be
        assertFalse(lines.contains("NOT protected") || lines.contains("could not instrument"), lines);
    }

    public static String key() {
        return UUID.randomUUID().toString();
    }

    public static String text(HttpResponse<byte[]> r) {
        return new String(r.body(), StandardCharsets.UTF_8);
    }

    public static void assertProblem(HttpResponse<byte[]> r, int status, String type) {
        assertEquals(status, r.statusCode(), text(r));
        assertEquals("application/problem+json", r.headers().firstValue("Content-Type").orElse(""), text(r));
        assertTrue(text(r).contains("\"type\":\"" + PROBLEM + type + "\""), text(r));
        assertTrue(text(r).contains("\"status\":" + status), text(r));
    }

    public static void assertReplayOf(HttpResponse<byte[]> original, HttpResponse<byte[]> replay) {
        assertEquals(original.statusCode(), replay.statusCode(), text(replay));
        assertEquals("true", replay.headers().firstValue("Idempotent-Replayed").orElse(null), text(replay));
        assertArrayEquals(original.body(), replay.body(), "the replayed body must be the original bytes");
        assertEquals(original.headers().firstValue("Location"), replay.headers().firstValue("Location"));
        assertEquals(original.headers().firstValue("Content-Type"), replay.headers().firstValue("Content-Type"));
    }

    /**
     * Sends {@code duplicates} copies of one slow keyed request at once: exactly one may run the application; the
     * others get 409 with Retry-After (or, arriving after it finished, its replay). Returns how many got 409.
     */
    public int sendConcurrentDuplicates(int duplicates, int createdStatus, Supplier<HttpRequest.Builder> request) throws Exception {
        CountDownLatch ready = new CountDownLatch(1);
        List<CompletableFuture<HttpResponse<byte[]>>> responses = new ArrayList<>();
        for (int i = 0; i < duplicates; i++) {
            responses.add(CompletableFuture.supplyAsync(() -> {
                try {
                    ready.await();
                    return client.send(request.get());
                } catch (Exception e) {
                    throw new IllegalStateException(e);
                }
            }));
        }
        ready.countDown();
        int executed = 0;
        int conflicts = 0;
        for (CompletableFuture<HttpResponse<byte[]>> f : responses) {
            HttpResponse<byte[]> r = f.get();
            if (r.statusCode() == createdStatus && r.headers().firstValue("Idempotent-Replayed").isEmpty()) {
                executed++;
            } else if (r.statusCode() == 409) {
                assertProblem(r, 409, "request-in-progress");
                int retryAfter = Integer.parseInt(r.headers().firstValue("Retry-After").orElseThrow());
                assertTrue(retryAfter >= 1, "Retry-After " + retryAfter);
                conflicts++;
            } else {
                assertEquals(createdStatus, r.statusCode(), text(r));
                assertEquals("true", r.headers().firstValue("Idempotent-Replayed").orElse(null));
            }
        }
        assertEquals(1, executed, "exactly one request may run the application");
        assertTrue(conflicts >= 1, "concurrent duplicates must see 409");
        return conflicts;
    }
}
