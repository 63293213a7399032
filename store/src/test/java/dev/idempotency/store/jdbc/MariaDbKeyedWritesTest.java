package dev.idempotency.store.jdbc;

import dev.idempotency.store.OwnershipToken;
import dev.idempotency.store.Reservation;
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
import java.util.Arrays;
import java.util.Collections;
import java.util.HashSet;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import java.util.TreeMap;
import java.util.UUID;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * What a keyed request costs MariaDB/MySQL. No secondary index of the key table names a column a completion changes,
 * so InnoDB changes the row alone for a completion instead of an entry in every index (the indexes of earlier releases
 * were all led by status, and a completion wrote about twice the redo log of the row alone); tables made by those
 * releases get the new indexes when the schema is created. The store's statements are prepared on the server, once
 * per connection, and then sent as an id and binary values instead of their whole text for every request; a URL that
 * turns that off is obeyed.
 */
class MariaDbKeyedWritesTest {
    private static final StoredResponse CREATED = new StoredResponse(201,
            Collections.singletonList(new StoredResponse.Header("Content-Type", "application/json")),
            "{\"id\":\"pay_1\"}".getBytes(StandardCharsets.UTF_8));
    /** What a completion writes (the store's completion statement): status, the response, updated_at. */
    private static final Set<String> CHANGED_BY_COMPLETION = new HashSet<>(Arrays.asList(
            "status", "response_status", "response_headers", "response_body", "updated_at"));

    private static TestDatabase db;
    private final String table = "kw_" + UUID.randomUUID().toString().replace("-", "").substring(0, 12);

    @BeforeAll
    static void database() {
        db = TestDatabase.mariadb();
    }

    @AfterEach
    void dropTable() throws SQLException {
        db.dropKeyTable(table);
    }

    @Test
    void noSecondaryIndexNamesAColumnACompletionChanges() throws SQLException {
        try (JdbcIdempotencyStore store = JdbcIdempotencyStore.open(settings())) {
            store.checkSchema();
        }
        Map<String, Set<String>> indexes = secondaryIndexes();
        assertEquals(new HashSet<>(Arrays.asList(table + "_lease_at_idx", table + "_expires_at_idx")), indexes.keySet());
        for (Map.Entry<String, Set<String>> index : indexes.entrySet()) {
            Set<String> shared = new HashSet<>(index.getValue());
            shared.retainAll(CHANGED_BY_COMPLETION);
            assertEquals(Collections.emptySet(), shared, index.getKey() + " names a column a completion changes");
        }
    }

    @Test
    void theIndexesOfEarlierReleasesAreReplacedWhenTheSchemaIsCreatedAndTheKeysStay() throws SQLException {
        try (JdbcIdempotencyStore store = JdbcIdempotencyStore.open(settings())) {
            OwnershipToken token = store.reserve("s", "k1", "fp").token();
            assertTrue(store.complete(token, CREATED));
        }
        // The table as earlier releases made it.
        try (Connection c = db.connect(new Properties()); Statement s = c.createStatement()) {
            s.execute("ALTER TABLE " + table + " DROP INDEX " + table + "_lease_at_idx, DROP INDEX " + table + "_expires_at_idx, "
                    + "ADD INDEX " + table + "_lease_idx (status, lease_expires_at), ADD INDEX " + table + "_expiry_idx (status, expires_at), "
                    + "ADD INDEX " + table + "_updated_idx (status, updated_at)");
        }
        assertEquals(3, secondaryIndexes().size(), "the earlier layout was made");

        try (JdbcIdempotencyStore store = JdbcIdempotencyStore.open(settings())) {
            store.checkSchema();
            assertEquals(new HashSet<>(Arrays.asList(table + "_lease_at_idx", table + "_expires_at_idx")), secondaryIndexes().keySet());
            Reservation retry = store.reserve("s", "k1", "fp");
            assertEquals(Reservation.Outcome.REPLAY, retry.outcome());
            assertEquals(201, retry.response().status());
            assertArrayEquals(CREATED.body(), retry.response().body());
        }
        // Opened again: nothing left to change.
        try (JdbcIdempotencyStore store = JdbcIdempotencyStore.open(settings())) {
            store.checkSchema();
        }
        assertEquals(2, secondaryIndexes().size());
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
        try (JdbcIdempotencyStore store = JdbcIdempotencyStore.open(settings(url))) {
            store.checkSchema();
            long[] before = serverCounts();
            for (int i = 0; i < n; i++) {
                OwnershipToken token = store.reserve("s", "k" + i, "fp").token();
                assertTrue(store.complete(token, CREATED));
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

    private StoreSettings settings() {
        return settings(db.url);
    }

    private StoreSettings settings(String url) {
        return StoreSettings.builder().url(url).user(db.user).password(db.password).table(table).build();
    }

    /** The key table's secondary indexes and the columns each holds. */
    private Map<String, Set<String>> secondaryIndexes() throws SQLException {
        Map<String, Set<String>> indexes = new TreeMap<>();
        try (Connection c = db.connect(new Properties()); Statement s = c.createStatement();
             ResultSet rs = s.executeQuery("SELECT INDEX_NAME, COLUMN_NAME FROM information_schema.STATISTICS WHERE TABLE_SCHEMA = DATABASE()"
                     + " AND TABLE_NAME = '" + table + "' AND INDEX_NAME <> 'PRIMARY'")) {
            while (rs.next()) indexes.computeIfAbsent(rs.getString(1), k -> new HashSet<>()).add(rs.getString(2).toLowerCase(java.util.Locale.ROOT));
        }
        return indexes;
    }
}
