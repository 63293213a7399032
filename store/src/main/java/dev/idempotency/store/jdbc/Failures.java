package dev.idempotency.store.jdbc;

import dev.idempotency.store.jdbc.dialect.Dialect;

import java.io.IOException;
import java.sql.SQLException;

/**
 * What a database failure means for the store: the database is away (fail closed, 503), the connection is lost but a
 * fresh one may work (a failover happened: drop the pool's connections), or another writer moved first (look again).
 */
final class Failures {

    private Failures() {
    }

    /** A lock the statement waited for was not granted within the lock timeout (PostgreSQL): someone else holds it. */
    static boolean lockNotGranted(SQLException e) {
        return "55P03".equals(e.getSQLState());
    }

    /** The database did not serve the statement: away, cancelled at the timeout, or not accepting writes. */
    static boolean unavailable(SQLException e) {
        String state = e.getSQLState();
        return state != null && (state.startsWith("08") || state.equals("57014") || state.equals("70100"))
                || lostConnection(e)
                || e instanceof java.sql.SQLTransientConnectionException || e instanceof java.sql.SQLNonTransientConnectionException
                || e instanceof java.sql.SQLRecoverableException || e instanceof java.sql.SQLTimeoutException
                || e.getCause() instanceof IOException;
    }

    /**
     * The connection can no longer take the store's writes, though a fresh one may: it broke, its server shut down, or
     * its server turned read-only (an old primary back as a standby). The pool's other connections to that server are
     * suspect too. A write whose replication is unconfirmed is not such a loss: a fresh connection would wait again.
     */
    static boolean lostConnection(SQLException e) {
        String state = e.getSQLState();
        if (Dialect.NOT_REPLICATED.equals(state)) return false;
        if (state != null && (state.startsWith("08") || state.equals("25006") || state.startsWith("57P"))) return true;
        int code = e.getErrorCode();
        // MariaDB/MySQL: --read-only (1290, 1836), a Galera node that left its cluster (1047).
        if (code == 1290 || code == 1836 || code == 1047) return true;
        return e instanceof java.sql.SQLNonTransientConnectionException || e instanceof java.sql.SQLRecoverableException
                || e.getCause() instanceof IOException;
    }

    /**
     * Another transaction won a conflict and this statement was rolled back whole: a deadlock, a serialization failure,
     * or Galera's certification refusing a write another node committed first. The key must be looked at again.
     */
    static boolean lostConflict(SQLException e) {
        String state = e.getSQLState();
        return "40001".equals(state) || "40P01".equals(state) || e.getErrorCode() == 1213;
    }
}
