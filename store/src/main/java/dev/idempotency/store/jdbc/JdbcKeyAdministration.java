package dev.idempotency.store.jdbc;

import dev.idempotency.store.EffectMark;
import dev.idempotency.store.KeyQuery;
import dev.idempotency.store.KeyRecord;
import dev.idempotency.store.KeyStatus;
import dev.idempotency.store.StoreSettings;
import dev.idempotency.store.StoredResponse;
import dev.idempotency.store.jdbc.dialect.Dialect;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collections;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;

/**
 * The operator's side of the JDBC store ({@link dev.idempotency.store.KeyAdministration}): find, list and count keys,
 * the database's clock, the manual resolutions of a key whose outcome is unknown, and the checks of the database
 * user's privileges. Nothing here runs on a request's path.
 */
final class JdbcKeyAdministration {
    private final StoreSettings settings;
    private final Dialect dialect;
    private final Sql sql;
    private final StoreConnections connections;
    private final JdbcStatements statements;
    private final KeyRows rows;
    /** Whether effect marks are part of the store's schema ({@code recovery=transaction}). */
    private final boolean markedEffects;

    JdbcKeyAdministration(StoreSettings settings, Dialect dialect, Sql sql, StoreConnections connections,
                          JdbcStatements statements, KeyRows rows, boolean markedEffects) {
        this.settings = settings;
        this.dialect = dialect;
        this.sql = sql;
        this.connections = connections;
        this.statements = statements;
        this.rows = rows;
        this.markedEffects = markedEffects;
    }

    Optional<KeyRecord> find(String scope, String key) {
        JdbcIdempotencyStore.requireIdentity(scope, key);
        return connections.repeatably("find", c -> {
            List<KeyRecord> records = query(c, sql.find, scope, key);
            if (records.isEmpty()) return Optional.<KeyRecord>empty();
            KeyRecord found = records.get(0);
            boolean marksMatter = found.status() == KeyStatus.UNKNOWN || found.status() == KeyStatus.IN_FLIGHT;
            return Optional.of(marksMatter ? found.withEffects(effectsIfAny(c, scope, key)) : found);
        });
    }

    List<KeyRecord> list(KeyQuery query) {
        Objects.requireNonNull(query, "query");
        if (query.scope() != null) JdbcIdempotencyStore.requireLength("scope", query.scope(), JdbcIdempotencyStore.MAX_IDENTIFIER_LENGTH);
        List<Object> params = new ArrayList<>();
        if (query.status() != null) params.add(query.status().name());
        if (query.scope() != null) params.add(query.scope());
        if (query.olderThan() != null) params.add(-query.olderThan().toMillis());
        params.add(query.limit());
        String statement = sql.list(query.status() != null, query.scope() != null, query.olderThan() != null);
        return connections.repeatably("list", c -> statements.readingWholeTable(c, whole -> {
            List<KeyRecord> records = new ArrayList<>();
            try (PreparedStatement ps = statements.prepare(whole, statement, params.toArray()); ResultSet rs = ps.executeQuery()) {
                while (rs.next()) records.add(rows.summary(rs));
            }
            return records;
        }));
    }

    Map<KeyStatus, Long> countByStatus() {
        return connections.repeatably("count keys", c -> statements.readingWholeTable(c, whole -> {
            Map<KeyStatus, Long> counts = new EnumMap<>(KeyStatus.class);
            try (PreparedStatement ps = statements.prepare(whole, sql.countByStatus); ResultSet rs = ps.executeQuery()) {
                while (rs.next()) counts.put(rows.decodeStatus(rs.getString("status"), "*", "*"), rs.getLong("n"));
            }
            return counts;
        }));
    }

    Instant databaseTime() {
        return connections.repeatably("read the database clock", c -> {
            try (PreparedStatement ps = statements.prepare(c, sql.databaseTime); ResultSet rs = ps.executeQuery()) {
                rs.next();
                return dialect.readInstant(rs, "db_now");
            }
        });
    }

    /**
     * What the store's database user may not do that the store needs, one line each; empty when everything works.
     * Inserts, updates and deletes a probe row in a transaction that is rolled back; with {@code ddl}, also creates and
     * drops a probe table (schema mode create needs that).
     */
    List<String> privilegeProblems(boolean ddl) {
        return connections.withConnection("check privileges", c -> PrivilegeProbe.problems(c, dialect, settings.table(), true, ddl));
    }

    /** Whether the key table exists and can be read (a store opened with schema mode none does no more than ask). */
    boolean tableExists() {
        return connections.repeatably("look for the table", c -> PrivilegeProbe.tableReadable(c, settings.table()));
    }

    /** {@link #privilegeProblems} for a table that does not exist yet: only whether it could be created. */
    List<String> creationProblems() {
        return connections.withConnection("check privileges", c -> PrivilegeProbe.problems(c, dialect, settings.table(), false, true));
    }

    boolean resolveForRetry(String scope, String key) {
        JdbcIdempotencyStore.requireIdentity(scope, key);
        return connections.withConnection("resolve for retry", StoreConnections.onceMoreOnConflict(c -> statements.update(c, sql.resolveForRetry, scope, key) == 1));
    }

    boolean resolveAsCompleted(String scope, String key, StoredResponse response) {
        JdbcIdempotencyStore.requireIdentity(scope, key);
        Objects.requireNonNull(response, "response");
        return connections.withConnection("resolve as completed", StoreConnections.onceMoreOnConflict(c -> statements.update(c, sql.resolveAsCompleted, response.status(),
                HeaderCodec.encode(response.headers()), response.body(), settings.ttl().toMillis(), scope, key) == 1));
    }

    boolean delete(String scope, String key) {
        JdbcIdempotencyStore.requireIdentity(scope, key);
        return connections.withConnection("delete", StoreConnections.onceMoreOnConflict(c -> statements.update(c, sql.delete, scope, key) == 1));
    }

    /**
     * The marks of a key's owner, also for an operator whose own settings do not say transaction (the key may have
     * been written by nodes that do); none where the effect table does not exist.
     */
    private List<EffectMark> effectsIfAny(Connection c, String scope, String key) throws SQLException {
        try {
            return effectsOf(c, scope, key);
        } catch (SQLException e) {
            if (markedEffects || Failures.unavailable(e)) throw e;
            return Collections.emptyList();
        }
    }

    private List<EffectMark> effectsOf(Connection c, String scope, String key) throws SQLException {
        List<EffectMark> marks = new ArrayList<>();
        try (PreparedStatement ps = statements.prepare(c, sql.effectsOf, scope, key); ResultSet rs = ps.executeQuery()) {
            while (rs.next()) marks.add(rows.effect(rs));
        }
        return marks;
    }

    private List<KeyRecord> query(Connection c, String statement, Object... params) throws SQLException {
        List<KeyRecord> records = new ArrayList<>();
        try (PreparedStatement ps = statements.prepare(c, statement, params); ResultSet rs = ps.executeQuery()) {
            while (rs.next()) {
                records.add(rows.record(rs));
            }
        }
        return records;
    }
}
