package dev.idempotency.store.jdbc;

import java.sql.Connection;
import java.sql.SQLException;

/** A transaction begun by turning autocommit off, for schema and partition changes that must land together. */
final class DdlTransaction {

    interface Body {
        /** Runs the statements and ends by committing. */
        void run() throws SQLException;
    }

    private DdlTransaction() {
    }

    /**
     * Runs {@code body} with autocommit off, then restores it. On failure rolls back; the body's failure is the one
     * thrown, carrying any failure to roll back or restore (a connection that died while it waited fails both).
     */
    static void run(Connection c, Body body) throws SQLException {
        boolean autoCommit = c.getAutoCommit();
        c.setAutoCommit(false);
        try {
            body.run();
        } catch (SQLException | RuntimeException e) {
            try {
                c.rollback();
            } catch (SQLException notRolledBack) {
                e.addSuppressed(notRolledBack);
            }
            try {
                c.setAutoCommit(autoCommit);
            } catch (SQLException notRestored) {
                e.addSuppressed(notRestored);
            }
            throw e;
        }
        c.setAutoCommit(autoCommit);
    }
}
