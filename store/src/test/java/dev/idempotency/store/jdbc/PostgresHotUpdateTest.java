package dev.idempotency.store.jdbc;

import dev.idempotency.store.OwnershipToken;
import dev.idempotency.store.StoreSettings;
import dev.idempotency.store.StoredResponse;
import dev.idempotency.store.testing.Await;
import dev.idempotency.store.testing.TestDatabase;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.Collections;
import java.util.List;
import java.util.Properties;
import java.util.UUID;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Completions are heap-only (HOT) updates on PostgreSQL: no index of the key table names a column a completion
 * changes, so PostgreSQL writes no index entry for it and leaves no dead one behind (a completion that touched an
 * indexed column rewrote every index entry of the row, and the table bloated twice as fast).
 */
class PostgresHotUpdateTest {
    private static final int KEYS = 1000;
    private static final int IN_FLIGHT = 64;
    private static TestDatabase db;
    private final String table = "hot_" + UUID.randomUUID().toString().replace("-", "").substring(0, 12);

    @BeforeAll
    static void database() {
        db = TestDatabase.postgres();
    }

    @AfterEach
    void dropTable() throws SQLException {
        db.dropKeyTable(table);
    }

    @Test
    void completionsAreHeapOnlyUpdates() {
        try (JdbcIdempotencyStore store = JdbcIdempotencyStore.open(settings())) {
            StoredResponse created = new StoredResponse(201, Collections.singletonList(new StoredResponse.Header("Content-Type", "application/json")),
                    "{\"id\":\"pay_0123456789\",\"status\":\"created\"}".getBytes(StandardCharsets.UTF_8));
            // As under load: each request completes once the next IN_FLIGHT ones have been reserved.
            Deque<OwnershipToken> inFlight = new ArrayDeque<>();
            for (int i = 0; i < KEYS; i++) {
                inFlight.add(store.reserve("s", "k" + i, "fp").token());
                if (inFlight.size() == IN_FLIGHT) assertTrue(store.complete(inFlight.poll(), created));
            }
            while (!inFlight.isEmpty()) assertTrue(store.complete(inFlight.poll(), created));
        }
        // The statistics reach the shared counters a little after the statements' transactions end.
        long[] updates = Await.until(KEYS + " updates counted", Duration.ofSeconds(30), this::updates, u -> u[0] >= KEYS);
        assertEquals(KEYS, updates[0], "one update per completion");
        assertTrue(updates[1] >= KEYS * 9 / 10, updates[1] + " of " + updates[0] + " updates were heap-only");
    }

    @Test
    void theIndexesOfEarlierReleasesAreReplacedWhenTheSchemaIsCreated() throws SQLException {
        try (JdbcIdempotencyStore store = JdbcIdempotencyStore.open(settings())) {
            store.checkSchema();
        }
        try (Connection c = db.connect(new Properties()); Statement s = c.createStatement()) {
            s.execute("CREATE INDEX " + table + "_lease_idx ON " + table + " (lease_expires_at) WHERE status = 'IN_FLIGHT'");
            s.execute("CREATE INDEX " + table + "_expiry_idx ON " + table + " (expires_at) WHERE status IN ('COMPLETED', 'RETRYABLE')");
            s.execute("CREATE INDEX " + table + "_unknown_idx ON " + table + " (updated_at) WHERE status = 'UNKNOWN'");
        }
        try (JdbcIdempotencyStore store = JdbcIdempotencyStore.open(settings())) {
            store.checkSchema();
        }
        List<String> definitions = new ArrayList<>();
        try (Connection c = db.connect(new Properties()); Statement s = c.createStatement();
             ResultSet rs = s.executeQuery("SELECT indexdef FROM pg_indexes WHERE tablename = '" + table + "' ORDER BY indexname")) {
            while (rs.next()) definitions.add(rs.getString(1));
        }
        assertEquals(3, definitions.size(), definitions.toString());
        for (String definition : definitions) {
            assertFalse(definition.contains("status") || definition.contains("updated_at"), definition);
        }
    }

    private StoreSettings settings() {
        return StoreSettings.builder().url(db.url).user(db.user).password(db.password).table(table).build();
    }

    /** Updates and heap-only updates of the key table so far. */
    private long[] updates() {
        try (Connection c = db.connect(new Properties()); Statement s = c.createStatement();
             ResultSet rs = s.executeQuery("SELECT n_tup_upd, n_tup_hot_upd FROM pg_stat_user_tables WHERE relname = '" + table + "'")) {
            return rs.next() ? new long[] {rs.getLong(1), rs.getLong(2)} : new long[] {0, 0};
        } catch (SQLException e) {
            throw new AssertionError(e);
        }
    }
}
