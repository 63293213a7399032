package dev.idempotency.e2e;

import dev.idempotency.e2e.support.AgentTool;
import dev.idempotency.e2e.support.Client;
import dev.idempotency.e2e.support.E2eEnvironment;
import dev.idempotency.e2e.scenarios.PaymentsScenarios;
import dev.idempotency.e2e.servers.ServerProcess;
import dev.idempotency.e2e.servers.TomcatServer;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.idempotency.store.testing.Await;
import dev.idempotency.store.testing.TestDatabase;
import org.junit.jupiter.api.Test;

import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.UUID;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The operator's session of docs/operations.md, with the real agent jar as the tool and as the agent of a stock Tomcat on
 * PostgreSQL, both reading one settings file: a crash leaves a key of unknown outcome; the operator finds it, looks at
 * it, decides it; the client's retry gets the decided answer and the application never runs again.
 */
public class OperatorCommandLineIT {
    private static final ObjectMapper JSON = new ObjectMapper();
    private static final String BODY = "{\"amount\":1999}";

    private static HttpRequest.Builder payment(Client client, String key, boolean slow) {
        HttpRequest.Builder r = client.request("/payments").header("Idempotency-Key", key).header("Content-Type", "application/json")
                .POST(HttpRequest.BodyPublishers.ofString(BODY));
        return slow ? r.header("X-Delay-Ms", "60000") : r;
    }

    private static Path settingsFile(TestDatabase db, String table) throws Exception {
        Path file = Files.createTempFile(Files.createDirectories(E2eEnvironment.work()), "idempotency-", ".properties");
        StringBuilder settings = new StringBuilder()
                .append("idempotency.store.url=").append(db.url).append('\n')
                .append("idempotency.store.table=").append(table).append('\n')
                .append("idempotency.lease=2s\n")
                .append("idempotency.sweep-interval=1s\n");
        if (db.user != null) settings.append("idempotency.store.user=").append(db.user).append("\nidempotency.store.password=").append(db.password).append('\n');
        Files.write(file, settings.toString().getBytes(StandardCharsets.UTF_8));
        return file;
    }

    private static long awaitCharges(Client client, long charges) {
        return Await.until("the application to charge", Duration.ofSeconds(30), () -> {
            try {
                return client.count("charge");
            } catch (Exception e) {
                throw new IllegalStateException(e);
            }
        }, n -> n == charges);
    }

    @Test
    public void aCrashedRequestIsFoundShownAndResolvedFromTheCommandLine() throws Exception {
        TestDatabase db = TestDatabase.postgres();
        String table = "cli_e2e_" + Long.toHexString(System.nanoTime());
        Path settings = settingsFile(db, table);
        String config = settings.toString();
        try (ServerProcess server = TomcatServer.tomcat9().set("idempotency.config", config)) {
            server.start();
            Client client = new Client(server.baseUrl());
            String key = UUID.randomUUID().toString();
            long before = client.count("charge");
            client.sendAsync(payment(client, key, true));
            awaitCharges(client, before + 1);

            // While the request runs, its key may not be touched.
            AgentTool.Result listRunning = AgentTool.run("keys", "list", "--status", "in-flight", "--json", "--config", config);
            assertEquals(0, listRunning.exit, listRunning.toString());
            JsonNode running = only(JSON.readTree(listRunning.out), key);
            String scope = running.get("scope").asText();
            assertTrue(running.get("leaseLeftMillis").asLong() > 0, listRunning.out);
            AgentTool.Result refused = AgentTool.run("keys", "delete", scope, key, "--yes", "--config", config);
            assertEquals(1, refused.exit, refused.toString());
            assertTrue(refused.err.contains("in flight"), refused.toString());

            server.kill();
            server.start();
            HttpResponse<byte[]> unknown = Await.until("the crashed request's key to be reported", Duration.ofSeconds(30),
                    () -> send(client, payment(client, key, false)), r -> PaymentsScenarios.text(r).contains("outcome-unknown"));
            PaymentsScenarios.assertProblem(unknown, 409, "outcome-unknown");

            AgentTool.Result list = AgentTool.run("keys", "list", "--status", "unknown", "--config", config);
            assertEquals(0, list.exit, list.toString());
            assertTrue(list.out.contains(key) && list.out.contains("unknown"), list.toString());

            AgentTool.Result show = AgentTool.run("keys", "show", scope, key, "--config", config);
            assertEquals(0, show.exit, show.toString());
            assertTrue(show.out.contains("unknown") && show.out.contains("none stored"), show.toString());

            AgentTool.Result doctor = AgentTool.run("doctor", "--config", config);
            assertEquals(0, doctor.exit, doctor.toString());
            assertTrue(doctor.out.contains("warn  unknown") && doctor.out.contains(key), doctor.toString());

            // The operator checked the ledger: the charge happened. The retry gets this answer, and nothing runs again.
            Path decided = Files.createTempFile(E2eEnvironment.work(), "decided-", ".json");
            Files.write(decided, "{\"status\":\"succeeded\",\"resolved\":\"by operator\"}".getBytes(StandardCharsets.UTF_8));
            AgentTool.Result resolve = AgentTool.run("keys", "resolve", scope, key, "--completed", "--status", "201",
                    "--body-file", decided.toString(), "--content-type", "application/json", "--yes", "--config", config);
            assertEquals(0, resolve.exit, resolve.toString());

            HttpResponse<byte[]> replay = send(client, payment(client, key, false));
            assertEquals(201, replay.statusCode(), PaymentsScenarios.text(replay));
            assertArrayEquals(Files.readAllBytes(decided), replay.body());
            assertEquals("true", replay.headers().firstValue("Idempotent-Replayed").orElse(null));
            assertEquals(before + 1, client.count("charge"), "the application never ran again");

            AgentTool.Result purge = AgentTool.run("purge", "--config", config);
            assertEquals(0, purge.exit, purge.toString());
            assertTrue(purge.out.contains("done: 0 expired keys deleted"), purge.toString());
        }
    }

    @Test
    public void faultsAndMistakesAreOneLineWithTheirExitCodes() throws Exception {
        AgentTool.Result down = AgentTool.run("keys", "list", "--url", "jdbc:postgresql://127.0.0.1:1/none?user=postgres");
        assertEquals(1, down.exit, down.toString());
        assertEquals(1, down.err.strip().lines().count(), down.toString());
        assertFalse(down.err.contains("\tat "), down.toString());

        AgentTool.Result doctor = AgentTool.run("doctor", "--url", "jdbc:postgresql://127.0.0.1:1/none?user=postgres");
        assertEquals(1, doctor.exit, doctor.toString());
        assertTrue(doctor.out.contains("FAIL  store"), doctor.toString());

        AgentTool.Result usage = AgentTool.run("keys", "resolve", "only-a-scope");
        assertEquals(2, usage.exit, usage.toString());
        assertTrue(usage.err.contains("usage: java -jar idempotency-agent.jar"), usage.toString());

        AgentTool.Result schema = AgentTool.run("schema", "postgresql");
        assertEquals(0, schema.exit, schema.toString());
        assertTrue(schema.out.contains("CREATE TABLE IF NOT EXISTS idempotency_keys"), schema.toString());
    }

    private static JsonNode only(JsonNode keys, String key) {
        JsonNode found = null;
        for (JsonNode k : keys) if (k.get("key").asText().equals(key)) found = k;
        if (found == null) throw new AssertionError("key " + key + " not listed in " + keys);
        return found;
    }

    private static HttpResponse<byte[]> send(Client client, HttpRequest.Builder request) {
        try {
            return client.send(request);
        } catch (Exception e) {
            throw new IllegalStateException(e);
        }
    }
}
