package dev.idempotency.store.jdbc;

import dev.idempotency.store.StoreDataException;
import dev.idempotency.store.jdbc.dialect.Dialect;

import java.security.SecureRandom;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;

/**
 * The 32 random bytes every node sharing a key table uses (in {@code <table>_secret}): made by whichever node needs it
 * first, then read by all, and cached once read. Never logged.
 */
final class InstallationSecret {
    private static final int BYTES = 32;

    private final StoreConnections connections;
    private final JdbcStatements statements;
    private final Dialect dialect;
    private final Sql sql;
    private final String table;
    private volatile byte[] known;

    InstallationSecret(StoreConnections connections, JdbcStatements statements, Dialect dialect, Sql sql,
                       String table) {
        this.connections = connections;
        this.statements = statements;
        this.dialect = dialect;
        this.sql = sql;
        this.table = table;
    }

    /** A copy of the secret: the caller may not change the one every request's scope is derived from. */
    byte[] get() {
        byte[] secret = known;
        if (secret == null) {
            secret = connections.repeatably("read the installation secret", this::readOrCreate);
            known = secret;
        }
        return secret.clone();
    }

    /** Insert-if-absent, then read: nodes racing on first use all read the one secret that got in. */
    private byte[] readOrCreate(Connection c) throws SQLException {
        byte[] candidate = new byte[BYTES];
        new SecureRandom().nextBytes(candidate);
        try {
            statements.update(c, sql.insertSecret, candidate);
        } catch (SQLException e) {
            if (!dialect.isDuplicateKey(e)) throw e;
        }
        try (PreparedStatement ps = statements.prepare(c, sql.selectSecret); ResultSet rs = ps.executeQuery()) {
            byte[] secret = rs.next() ? rs.getBytes(1) : null;
            if (secret == null || secret.length != BYTES) {
                throw new StoreDataException("the installation secret in table '" + table + "_secret' is "
                        + (secret == null ? "missing" : secret.length + " bytes long") + ", expected " + BYTES
                        + " bytes; delete its row and every node will agree on a new one", null);
            }
            return secret;
        }
    }
}
