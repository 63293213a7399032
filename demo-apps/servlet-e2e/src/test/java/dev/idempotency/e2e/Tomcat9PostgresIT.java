package dev.idempotency.e2e;

import dev.idempotency.e2e.scenarios.PaymentsScenarios;
import dev.idempotency.e2e.servers.ServerProcess;
import dev.idempotency.e2e.servers.TomcatServer;
import dev.idempotency.store.testing.Await;
import dev.idempotency.store.testing.TcpProxy;
import dev.idempotency.store.testing.TestDatabase;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;

import java.net.http.HttpResponse;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.time.Duration;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Tomcat 9 on the production store, PostgreSQL, reached through a TCP proxy the test can cut: with the store down,
 * a keyed request fails closed (503) and never runs the application; requests without a key are unaffected.
 */
public class Tomcat9PostgresIT extends PaymentsScenarios {
    private TcpProxy proxy;
    private TestDatabase db;
    private final String table = "e2e_keys_" + Long.toHexString(System.nanoTime());

    @Override
    protected ServerProcess server() throws Exception {
        db = TestDatabase.postgres();
        proxy = new TcpProxy(db.hostAndPort());
        ServerProcess tomcat = TomcatServer.tomcat9()
                .set("idempotency.store.url", db.viaPort("127.0.0.1", proxy.port()))
                .set("idempotency.store.table", table)
                .set("idempotency.store.connect-timeout", "1s");
        if (db.user != null) tomcat.set("idempotency.store.user", db.user).set("idempotency.store.password", db.password);
        return tomcat;
    }

    @AfterAll
    public void closeProxy() throws Exception {
        if (proxy != null) proxy.close();
    }

    @Test
    public void withTheStoreCutOffKeyedRequestsFailClosedAndNothingRuns() throws Exception {
        assertEquals(201, client.postJson("/payments", key(), "{\"amount\":1}").statusCode(), "the store works before the cut");
        long charges = client.count("charge");
        proxy.cut();
        try {
            HttpResponse<byte[]> refused = client.postJson("/payments", key(), "{\"amount\":2}");
            assertProblem(refused, 503, "store-unavailable");
            assertTrue(Integer.parseInt(refused.headers().firstValue("Retry-After").orElseThrow()) >= 1);
            assertEquals(charges, client.count("charge"), "fail closed: the application must not run");
            assertEquals(201, client.postJson("/payments", null, "{\"amount\":3}").statusCode(), "requests without a key never touch the store");
        } finally {
            proxy.restore();
        }
        String key = key();
        HttpResponse<byte[]> recovered = Await.until("the store to come back", Duration.ofSeconds(30), () -> {
            try {
                return client.postJson("/payments", key, "{\"amount\":4}");
            } catch (Exception e) {
                throw new IllegalStateException(e);
            }
        }, r -> r.statusCode() != 503);
        assertEquals(201, recovered.statusCode(), text(recovered));
    }

    /** A row this version cannot read (a status a newer version wrote during a rolling upgrade) is refused, never run. */
    @Test
    public void aRowThisVersionCannotReadIsRefusedAndNothingRuns() throws Exception {
        String key = key();
        assertEquals(201, client.postJson("/payments", key, "{\"amount\":5}").statusCode());
        try (Connection c = DriverManager.getConnection(db.url, db.user, db.password);
             PreparedStatement update = c.prepareStatement("UPDATE " + table + " SET status = 'ARCHIVED' WHERE idem_key = ?")) {
            update.setString(1, key);
            assertEquals(1, update.executeUpdate());
        }
        long charges = client.count("charge");
        HttpResponse<byte[]> refused = client.postJson("/payments", key, "{\"amount\":5}");
        assertEquals(503, refused.statusCode(), text(refused));
        assertTrue(text(refused).contains(PROBLEM), text(refused));
        assertEquals(charges, client.count("charge"), "an unreadable row is no reason to run the application");
    }
}
