package dev.idempotency.store.jdbc;

import dev.idempotency.store.EffectMark;
import dev.idempotency.store.OwnershipToken;
import dev.idempotency.store.StoreConfigurationException;
import dev.idempotency.store.jdbc.dialect.Dialect;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.Objects;
import java.util.UUID;

/**
 * Writes {@link EffectMark}s on any connection to the store's database: an application's own, inside the transaction
 * whose effect it marks, or the store's. A mark goes in only while its token still owns the key, and it holds a lock
 * on the key's row until the transaction ends: a takeover after a crash, which locks that row before it reads the
 * marks, either sees the mark or has already moved the key on, and then the mark (and the application's transaction
 * with it) is refused. Nothing here fails on a connection to another database (see {@link #seesKey}).
 */
public final class EffectMarks {
    private final String insertMark;
    private final String tableExists;
    private final String keyOwned;
    /** A query saying whether the connection's open transaction wrote anything; null where the database cannot say. */
    private final String transactionWrote;
    private final String schema;
    private final String name;

    private EffectMarks(Dialect dialect, String table) {
        String effects = table + "_effects";
        insertMark = "INSERT INTO " + effects + " (scope, idem_key, owner_token, mark_id, kind, detail, marked_at) "
                + "SELECT scope, idem_key, owner_token, ?, ?, ?, " + dialect.now() + " FROM " + table
                + " WHERE scope = ? AND idem_key = ? AND owner_token = ? AND status IN ('IN_FLIGHT', 'UNKNOWN')"
                + dialect.shareLockClause();
        int dot = effects.lastIndexOf('.');
        schema = dot < 0 ? null : effects.substring(0, dot);
        name = effects.substring(dot + 1);
        // information_schema lists only what the user may use, and a query of it cannot fail for an absent table: a
        // failed statement would abort the application's PostgreSQL transaction.
        tableExists = "SELECT COUNT(*) FROM information_schema.tables WHERE LOWER(table_name) = LOWER(?)"
                + " AND LOWER(table_schema) = LOWER(COALESCE(?, " + dialect.currentSchema() + "))";
        keyOwned = "SELECT COUNT(*) FROM " + table + " WHERE scope = ? AND idem_key = ? AND owner_token = ?";
        transactionWrote = dialect.transactionWroteQuery();
    }

    /** Whether the connection's open transaction wrote anything; false where the database cannot tell. */
    public boolean transactionWrote(Connection connection) throws SQLException {
        if (transactionWrote == null) return false;
        try (PreparedStatement ps = connection.prepareStatement(transactionWrote); ResultSet rs = ps.executeQuery()) {
            return rs.next() && rs.getInt(1) == 1;
        }
    }

    /** Marks for the store's table on a database of the dialect named by a JDBC URL; null for a database the store does not support. */
    public static EffectMarks forUrl(String jdbcUrl, String table) {
        Objects.requireNonNull(table, "table");
        if (jdbcUrl == null) return null;
        try {
            return new EffectMarks(Dialect.forUrl(jdbcUrl), table);
        } catch (StoreConfigurationException unsupported) {
            return null;
        }
    }

    static EffectMarks of(Dialect dialect, String table) {
        return new EffectMarks(dialect, table);
    }

    /**
     * Whether this connection reaches the store's database: it can see the effect table and the key row that
     * {@code token} owns (a random token no other database holds). Runs two selects that cannot fail for a database
     * without the store's tables.
     */
    public boolean seesKey(Connection connection, OwnershipToken token) throws SQLException {
        try (PreparedStatement ps = connection.prepareStatement(tableExists)) {
            ps.setString(1, name);
            ps.setString(2, schema);
            try (ResultSet rs = ps.executeQuery()) {
                if (!rs.next() || rs.getLong(1) == 0) return false;
            }
        }
        try (PreparedStatement ps = connection.prepareStatement(keyOwned)) {
            ps.setString(1, token.scope());
            ps.setString(2, token.key());
            ps.setString(3, token.token());
            try (ResultSet rs = ps.executeQuery()) {
                return rs.next() && rs.getLong(1) == 1;
            }
        }
    }

    /**
     * Writes a mark in the connection's current transaction (in autocommit, as its own). Returns false, writing
     * nothing, when {@code token} no longer owns its key: the caller must not let the effect happen.
     */
    public boolean mark(Connection connection, OwnershipToken token, EffectMark.Kind kind, String detail) throws SQLException {
        try (PreparedStatement ps = connection.prepareStatement(insertMark)) {
            ps.setString(1, UUID.randomUUID().toString());
            ps.setString(2, kind.name());
            ps.setString(3, EffectMark.fit(detail));
            ps.setString(4, token.scope());
            ps.setString(5, token.key());
            ps.setString(6, token.token());
            return ps.executeUpdate() == 1;
        }
    }
}
