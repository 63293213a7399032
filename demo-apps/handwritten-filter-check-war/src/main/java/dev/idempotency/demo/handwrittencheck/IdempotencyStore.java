package dev.idempotency.demo.handwrittencheck;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.regex.Pattern;

/**
 * The idempotency table in PostgreSQL. Every statement runs in autocommit on a pooled connection: each one is a single
 * atomic row operation, so no transaction is ever held open while the application runs.
 */
final class IdempotencyStore implements AutoCloseable {

    static final String IN_FLIGHT = "IN_FLIGHT";
    static final String COMPLETED = "COMPLETED";

    /** The table name is concatenated into SQL, so it must be a plain identifier. */
    private static final Pattern IDENTIFIER = Pattern.compile("[A-Za-z_][A-Za-z0-9_]{0,47}");

    private static final int PURGE_BATCH = 1000;

    private final HikariDataSource pool;
    private final String insertSql;
    private final String selectSql;
    private final String completeSql;
    private final String releaseSql;
    private final String purgeSql;

    /** What the table holds for a key that someone else reserved first. */
    static final class Row {
        final String status;
        final byte[] fingerprint;
        final int responseStatus;
        final String responseContentType;
        final byte[] responseBody;

        Row(String status, byte[] fingerprint, int responseStatus, String responseContentType, byte[] responseBody) {
            this.status = status;
            this.fingerprint = fingerprint;
            this.responseStatus = responseStatus;
            this.responseContentType = responseContentType;
            this.responseBody = responseBody;
        }
    }

    IdempotencyStore(String jdbcUrl, String table, int poolSize) throws SQLException {
        if (!IDENTIFIER.matcher(table).matches()) {
            throw new IllegalArgumentException("not a plain SQL identifier: " + table);
        }
        HikariConfig config = new HikariConfig();
        config.setPoolName("handwritten-idempotency-check");
        config.setJdbcUrl(jdbcUrl);
        // Named explicitly: inside a WAR, DriverManager does not see drivers in WEB-INF/lib on every container.
        config.setDriverClassName("org.postgresql.Driver");
        config.setMaximumPoolSize(poolSize);
        config.setAutoCommit(true);
        pool = new HikariDataSource(config);

        insertSql = "INSERT INTO " + table + " (idem_key, fingerprint, status) VALUES (?, ?, '" + IN_FLIGHT + "')"
                + " ON CONFLICT (idem_key) DO NOTHING";
        selectSql = "SELECT status, fingerprint, response_status, response_content_type, response_body FROM " + table
                + " WHERE idem_key = ?";
        completeSql = "UPDATE " + table + " SET status = '" + COMPLETED + "', response_status = ?,"
                + " response_content_type = ?, response_body = ? WHERE idem_key = ? AND status = '" + IN_FLIGHT + "'";
        releaseSql = "DELETE FROM " + table + " WHERE idem_key = ? AND status = '" + IN_FLIGHT + "'";
        // A bounded batch per statement keeps each purge short, so it never holds many row locks at once.
        purgeSql = "DELETE FROM " + table + " WHERE idem_key IN (SELECT idem_key FROM " + table
                + " WHERE created_at < now() - interval '24 hours' LIMIT " + PURGE_BATCH + ")";

        try {
            createTableIfMissing(table);
        } catch (SQLException | RuntimeException e) {
            pool.close();
            throw e;
        }
    }

    private void createTableIfMissing(String table) throws SQLException {
        try (Connection c = pool.getConnection(); Statement s = c.createStatement()) {
            s.execute("CREATE TABLE IF NOT EXISTS " + table + " ("
                    + " idem_key TEXT PRIMARY KEY,"
                    + " fingerprint BYTEA NOT NULL,"
                    + " status VARCHAR(16) NOT NULL,"
                    + " response_status INTEGER,"
                    + " response_content_type TEXT,"
                    + " response_body BYTEA,"
                    + " created_at TIMESTAMPTZ NOT NULL DEFAULT now())");
            // The purge looks rows up by age.
            s.execute("CREATE INDEX IF NOT EXISTS " + table + "_created_at_idx ON " + table + " (created_at)");
        }
    }

    /** True if this call inserted the key as IN_FLIGHT, i.e. the caller now owns it. */
    boolean reserve(String key, byte[] fingerprint) throws SQLException {
        try (Connection c = pool.getConnection(); PreparedStatement ps = c.prepareStatement(insertSql)) {
            ps.setString(1, key);
            ps.setBytes(2, fingerprint);
            return ps.executeUpdate() == 1;
        }
    }

    /** The key's row, or null if it vanished since the INSERT (released by a 5xx, or purged). */
    Row find(String key) throws SQLException {
        try (Connection c = pool.getConnection(); PreparedStatement ps = c.prepareStatement(selectSql)) {
            ps.setString(1, key);
            try (ResultSet rs = ps.executeQuery()) {
                if (!rs.next()) {
                    return null;
                }
                return new Row(rs.getString(1), rs.getBytes(2), rs.getInt(3), rs.getString(4), rs.getBytes(5));
            }
        }
    }

    /** Stores the response of a reserved key; false if the row was no longer IN_FLIGHT. */
    boolean complete(String key, int status, String contentType, byte[] body) throws SQLException {
        try (Connection c = pool.getConnection(); PreparedStatement ps = c.prepareStatement(completeSql)) {
            ps.setInt(1, status);
            ps.setString(2, contentType);
            ps.setBytes(3, body);
            ps.setString(4, key);
            return ps.executeUpdate() == 1;
        }
    }

    /** Deletes a reserved key so that a retry runs the application again. */
    void release(String key) throws SQLException {
        try (Connection c = pool.getConnection(); PreparedStatement ps = c.prepareStatement(releaseSql)) {
            ps.setString(1, key);
            ps.executeUpdate();
        }
    }

    /** Deletes every key older than 24 hours, one batch at a time; returns how many went. */
    int purgeExpired() throws SQLException {
        int total = 0;
        try (Connection c = pool.getConnection(); PreparedStatement ps = c.prepareStatement(purgeSql)) {
            int deleted;
            do {
                deleted = ps.executeUpdate();
                total += deleted;
            } while (deleted == PURGE_BATCH);
        }
        return total;
    }

    @Override
    public void close() {
        pool.close();
    }
}
