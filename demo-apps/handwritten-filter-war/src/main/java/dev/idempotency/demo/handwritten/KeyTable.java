package dev.idempotency.demo.handwritten;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.sql.Timestamp;
import java.util.Locale;

/**
 * The filter's table of keys and its statements, one row per key: the request's fingerprint, IN_FLIGHT or
 * COMPLETED, the stored answer (status, Content-Type, body) and when the key was first seen. Every statement is a
 * single-row statement on the primary key, run in autocommit, except the purge (a batch on the created_at index).
 */
final class KeyTable {
    static final String IN_FLIGHT = "IN_FLIGHT";
    static final String COMPLETED = "COMPLETED";
    /** SQLState of a unique or primary key violation (H2, and the SQL standard). */
    private static final String DUPLICATE_KEY = "23505";

    /** The three databases the filter runs on; the JDBC URL picks one. */
    enum Database {
        POSTGRESQL("org.postgresql.Driver", "BYTEA"),
        MARIADB("org.mariadb.jdbc.Driver", "LONGBLOB"),
        H2("org.h2.Driver", "BLOB");

        final String driverClass;
        final String bodyType;

        Database(String driverClass, String bodyType) {
            this.driverClass = driverClass;
            this.bodyType = bodyType;
        }

        static Database of(String url) {
            String u = url.toLowerCase(Locale.ROOT);
            if (u.startsWith("jdbc:postgresql:")) return POSTGRESQL;
            if (u.startsWith("jdbc:mariadb:") || u.startsWith("jdbc:mysql:")) return MARIADB;
            if (u.startsWith("jdbc:h2:")) return H2;
            throw new IllegalArgumentException("unsupported JDBC URL " + url + " (expected PostgreSQL, MariaDB or H2)");
        }
    }

    /** A row as a later request with the same key finds it. */
    static final class Row {
        final String fingerprint;
        final String status;
        final int responseStatus;
        final String contentType;
        final byte[] body;

        Row(String fingerprint, String status, int responseStatus, String contentType, byte[] body) {
            this.fingerprint = fingerprint;
            this.status = status;
            this.responseStatus = responseStatus;
            this.contentType = contentType;
            this.body = body;
        }
    }

    final Database database;
    private final String table;
    private final String reserve;
    private final String find;
    private final String complete;
    private final String release;
    private final String purge;

    KeyTable(String url, String table) {
        if (!table.matches("[A-Za-z_][A-Za-z0-9_]{0,50}")) throw new IllegalArgumentException("bad table name " + table);
        this.database = Database.of(url);
        this.table = table;
        String insert = "INTO " + table + " (idempotency_key, fingerprint, status, created_at) VALUES (?, ?, '" + IN_FLIGHT + "', ?)";
        switch (database) {
            case POSTGRESQL:
                reserve = "INSERT " + insert + " ON CONFLICT DO NOTHING";
                purge = "DELETE FROM " + table + " WHERE idempotency_key IN (SELECT idempotency_key FROM " + table
                        + " WHERE created_at < ? LIMIT ?)";
                break;
            case MARIADB:
                // The key's length is checked before: IGNORE would otherwise truncate a long key silently.
                reserve = "INSERT IGNORE " + insert;
                purge = "DELETE FROM " + table + " WHERE created_at < ? LIMIT ?";
                break;
            default:
                reserve = "INSERT " + insert; // a duplicate key is the exception reserve() expects
                purge = "DELETE FROM " + table + " WHERE created_at < ? FETCH FIRST ? ROWS ONLY";
        }
        find = "SELECT fingerprint, status, response_status, response_content_type, response_body FROM " + table
                + " WHERE idempotency_key = ?";
        complete = "UPDATE " + table + " SET status = '" + COMPLETED + "', response_status = ?, response_content_type = ?,"
                + " response_body = ? WHERE idempotency_key = ? AND status = '" + IN_FLIGHT + "'";
        release = "DELETE FROM " + table + " WHERE idempotency_key = ? AND status = '" + IN_FLIGHT + "'";
    }

    void create(Connection c) throws SQLException {
        try (Statement s = c.createStatement()) {
            s.execute("CREATE TABLE IF NOT EXISTS " + table + " ("
                    + "idempotency_key VARCHAR(255) NOT NULL PRIMARY KEY, "
                    + "fingerprint CHAR(64) NOT NULL, "
                    + "status VARCHAR(16) NOT NULL, "
                    + "response_status INTEGER, "
                    + "response_content_type VARCHAR(255), "
                    + "response_body " + database.bodyType + ", "
                    + "created_at TIMESTAMP NOT NULL)");
            s.execute("CREATE INDEX IF NOT EXISTS " + table + "_created_at ON " + table + " (created_at)");
        }
    }

    /** Claims the key for this request: true if the row is new (IN_FLIGHT, ours), false if the key exists. */
    boolean reserve(Connection c, String key, String fingerprint) throws SQLException {
        try (PreparedStatement ps = c.prepareStatement(reserve)) {
            ps.setString(1, key);
            ps.setString(2, fingerprint);
            ps.setTimestamp(3, new Timestamp(System.currentTimeMillis()));
            return ps.executeUpdate() == 1;
        } catch (SQLException e) {
            if (database == Database.H2 && DUPLICATE_KEY.equals(e.getSQLState())) return false;
            throw e;
        }
    }

    /** The key's row, or null if there is none (released or purged since). */
    Row find(Connection c, String key) throws SQLException {
        try (PreparedStatement ps = c.prepareStatement(find)) {
            ps.setString(1, key);
            try (ResultSet rs = ps.executeQuery()) {
                if (!rs.next()) return null;
                return new Row(rs.getString(1), rs.getString(2), rs.getInt(3), rs.getString(4), rs.getBytes(5));
            }
        }
    }

    /** Stores the answer of a key this request reserved; false if the row was no longer in flight. */
    boolean complete(Connection c, String key, int status, String contentType, byte[] body) throws SQLException {
        try (PreparedStatement ps = c.prepareStatement(complete)) {
            ps.setInt(1, status);
            ps.setString(2, contentType);
            ps.setBytes(3, body);
            ps.setString(4, key);
            return ps.executeUpdate() == 1;
        }
    }

    /** Forgets a key this request reserved, so that the client may retry it. */
    void release(Connection c, String key) throws SQLException {
        try (PreparedStatement ps = c.prepareStatement(release)) {
            ps.setString(1, key);
            ps.executeUpdate();
        }
    }

    /** Deletes up to batch keys created before the given time; returns how many. */
    int purge(Connection c, Timestamp before, int batch) throws SQLException {
        try (PreparedStatement ps = c.prepareStatement(purge)) {
            ps.setTimestamp(1, before);
            ps.setInt(2, batch);
            return ps.executeUpdate();
        }
    }
}
