package dev.idempotency.e2e;

import dev.idempotency.e2e.support.Client;
import dev.idempotency.e2e.scenarios.PaymentsScenarios;
import dev.idempotency.e2e.servers.ServerProcess;
import dev.idempotency.e2e.servers.TomcatServer;
import dev.idempotency.store.testing.TcpProxy;
import dev.idempotency.store.testing.TestDatabase;
import org.junit.jupiter.api.Test;

import java.net.http.HttpResponse;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The host is never broken by the agent: a bad setting leaves it running unprotected; failure-mode=open runs requests. */
public class AgentFailureModesIT {

    @Test
    public void aBadSettingStartsTheHostUnprotectedAndSaysSo() throws Exception {
        try (ServerProcess server = TomcatServer.tomcat9().set("idempotency.lease", "thirty seconds")) {
            server.start();
            Client client = new Client(server.baseUrl());
            String lines = server.agentLines();
            assertTrue(lines.contains("'idempotency.lease' is 'thirty seconds'") && lines.contains("UNPROTECTED"), lines);
            long before = client.count("charge");
            String key = PaymentsScenarios.key();
            for (int i = 0; i < 2; i++) assertEquals(201, client.postJson("/payments", key, "{\"amount\":1}").statusCode());
            assertEquals(before + 2, client.count("charge"), "without a valid configuration nothing is intercepted");
        }
    }

    @Test
    public void failureModeOpenRunsRequestsUnprotectedWhileTheStoreIsDown() throws Exception {
        TestDatabase db = TestDatabase.postgres();
        try (TcpProxy proxy = new TcpProxy(db.hostAndPort());
             ServerProcess server = TomcatServer.tomcat9().set("idempotency.failure-mode", "open")
                     .set("idempotency.store.url", db.viaPort("127.0.0.1", proxy.port()))
                     .set("idempotency.store.table", "e2e_open_" + Long.toHexString(System.nanoTime()))
                     .set("idempotency.store.connect-timeout", "1s")) {
            server.start();
            Client client = new Client(server.baseUrl());
            proxy.cut();
            long before = client.count("charge");
            HttpResponse<byte[]> r = client.postJson("/payments", PaymentsScenarios.key(), "{\"amount\":8,\"currency\":\"usd\"}");
            assertEquals(201, r.statusCode(), PaymentsScenarios.text(r));
            assertTrue(PaymentsScenarios.text(r).contains("\"amount\":8"), "the application still got the body: " + PaymentsScenarios.text(r));
            assertFalse(r.headers().firstValue("Idempotent-Replayed").isPresent());
            assertEquals(before + 1, client.count("charge"));
            assertTrue(server.agentLines().contains("UNPROTECTED"), server.agentLines());
        }
    }
}
