package dev.idempotency.store.jdbc;

import dev.idempotency.store.OwnershipToken;
import dev.idempotency.store.StoreSettings;
import dev.idempotency.store.StoredResponse;
import dev.idempotency.store.testing.TestDatabase;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.Collections;
import java.util.Properties;
import java.util.UUID;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The store's statements are prepared on the MariaDB server, once per connection, and then sent as an id and binary
 * values instead of their whole text for every request; a URL that turns that off is obeyed.
 */
class MariaDbPreparedStatementsTest {
    private static TestDatabase db;
    private final String table = "prep_" + UUID.randomUUID().toString().replace("-", "").substring(0, 12);

    @BeforeAll
    static void database() {
        db = TestDatabase.mariadb();
    }

    @AfterEach
    void dropTable() throws SQLException {
        db.dropKeyTable(table);
    }

    @Test
    void aKeyedRequestsStatementsArePreparedOnTheServerAndRunFromThere() throws SQLException {
        long[] counts = keyedRequests(db.url, 20);
        assertTrue(counts[0] >= 2, "the reservation and the completion are prepared once: " + counts[0] + " prepared");
        assertTrue(counts[0] <= 10, "prepared once per connection, not per request: " + counts[0] + " prepared for 20 requests");
        assertTrue(counts[1] >= 40, "each request's two statements run prepared: " + counts[1] + " executions");
    }

    @Test
    void aUrlThatTurnsServerPreparationOffIsObeyed() throws SQLException {
        String url = db.url + (db.url.contains("?") ? "&" : "?") + "useServerPrepStmts=false";
        long[] counts = keyedRequests(url, 20);
        assertEquals(0, counts[1], "no statement ran prepared on the server");
    }

    /** Runs {@code n} keyed requests; returns how many statements the server prepared and executed meanwhile. */
    private long[] keyedRequests(String url, int n) throws SQLException {
        StoredResponse created = new StoredResponse(201, Collections.singletonList(new StoredResponse.Header("Content-Type", "application/json")),
                "{\"id\":\"pay_1\"}".getBytes(StandardCharsets.UTF_8));
        StoreSettings settings = StoreSettings.builder().url(url).user(db.user).password(db.password).table(table).build();
        try (JdbcIdempotencyStore store = JdbcIdempotencyStore.open(settings)) {
            store.checkSchema();
            long[] before = serverCounts();
            for (int i = 0; i < n; i++) {
                OwnershipToken token = store.reserve("s", "k" + i, "fp").token();
                assertTrue(store.complete(token, created));
            }
            long[] after = serverCounts();
            return new long[] {after[0] - before[0], after[1] - before[1]};
        }
    }

    /** The server's counts of statements prepared and executed by id since it started (all sessions). */
    private static long[] serverCounts() throws SQLException {
        long[] counts = new long[2];
        try (Connection c = db.connect(new Properties()); Statement s = c.createStatement();
             ResultSet rs = s.executeQuery("SHOW GLOBAL STATUS WHERE Variable_name IN ('Com_stmt_prepare', 'Com_stmt_execute')")) {
            while (rs.next()) counts[rs.getString(1).equals("Com_stmt_prepare") ? 0 : 1] = rs.getLong(2);
        }
        return counts;
    }
}
