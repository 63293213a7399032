package dev.idempotency.store.jdbc;

import dev.idempotency.store.jdbc.dialect.Dialect;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.concurrent.TimeUnit;

/**
 * The store's statements on a connection it was handed: prepared with their parameters and held to the query timeout
 * (by the store's watchdog or the driver), writes that the dialect times, commits, and transactions begun and ended as
 * the dialect needs. No connection handling and no knowledge of keys: that is the store's.
 */
final class JdbcStatements implements AutoCloseable {
    private final Dialect dialect;
    private final int queryTimeoutSeconds;
    final long queryTimeoutNanos;
    private final StatementWatchdog watchdog;

    JdbcStatements(Dialect dialect, Duration queryTimeout) {
        this.dialect = dialect;
        this.queryTimeoutSeconds = Dialect.seconds(queryTimeout);
        this.queryTimeoutNanos = TimeUnit.SECONDS.toNanos(queryTimeoutSeconds);
        this.watchdog = dialect.cancelsFromWatchdog() ? new StatementWatchdog("idempotency-store-watchdog") : null;
    }

    /**
     * An operator's query over the whole table, in a read-only transaction of its own that may scan the table
     * sequentially (the store's connections otherwise never do: see {@link Dialect#allowSequentialScans}).
     */
    <T> T readingWholeTable(Connection c, PooledWork.Work<T> query) throws SQLException {
        String allow = dialect.allowSequentialScans();
        if (allow == null) return query.run(c);
        return inTransaction(c, tx -> {
            execute(tx, allow);
            return query.run(tx);
        });
    }

    /**
     * Runs {@code work} in one transaction and commits; on any failure rolls back. Begun and ended by statements where
     * the dialect says so (see {@link Dialect#beginStatement}): such a transaction would otherwise stay open on the
     * pooled connection, autocommit or not.
     */
    <T> T inTransaction(Connection c, PooledWork.Work<T> work) throws SQLException {
        String begin = dialect.beginStatement();
        if (begin == null) c.setAutoCommit(false);
        else execute(c, begin);
        try {
            T result = work.run(c);
            if (begin == null) commit(c);
            else execute(c, "COMMIT");
            return result;
        } catch (SQLException | RuntimeException | Error e) {
            rollBack(c, begin != null, e);
            throw e;
        } finally {
            if (begin == null) c.setAutoCommit(true);
        }
    }

    /**
     * Undoes the connection's open transaction (begun by statement, or by turning autocommit off) after {@code failure},
     * which carries any failure of the rollback.
     */
    private static void rollBack(Connection c, boolean begunByStatement, Throwable failure) {
        try {
            if (begunByStatement) execute(c, "ROLLBACK");
            else c.rollback();
        } catch (SQLException notRolledBack) {
            failure.addSuppressed(notRolledBack);
        }
    }

    int update(Connection c, String statement, Object... params) throws SQLException {
        try (PreparedStatement ps = prepare(c, statement, params)) {
            return dialect.write(ps, PreparedStatement::executeUpdate, queryTimeoutNanos);
        }
    }

    /** Commits on the server within the query timeout, or fails as a write that may not have been replicated. */
    void commit(Connection c) throws SQLException {
        dialect.commit(c, this::limitTime, queryTimeoutNanos);
    }

    /** Holds a statement to the query timeout: the store's watchdog cancels it, or the driver (or H2's session) does. */
    void limitTime(Statement s) throws SQLException {
        if (watchdog != null) watchdog.watch(s, queryTimeoutNanos);
        else dialect.limitTime(s, queryTimeoutSeconds);
    }

    /** A statement the database cancels itself once it ran past the query timeout, freeing its server process. */
    PreparedStatement prepare(Connection c, String statement, Object... params) throws SQLException {
        PreparedStatement ps = c.prepareStatement(statement);
        try {
            limitTime(ps);
            bind(ps, params);
            return ps;
        } catch (SQLException | RuntimeException e) {
            ps.close();
            throw e;
        }
    }

    static void bind(PreparedStatement ps, Object... params) throws SQLException {
        for (int i = 0; i < params.length; i++) {
            Object p = params[i];
            if (p instanceof String) ps.setString(i + 1, (String) p);
            else if (p instanceof Long) ps.setLong(i + 1, (Long) p);
            else if (p instanceof Integer) ps.setInt(i + 1, (Integer) p);
            else if (p instanceof byte[]) ps.setBytes(i + 1, (byte[]) p);
            else throw new IllegalArgumentException("unsupported parameter type " + p);
        }
    }

    static void execute(Connection c, String statement) throws SQLException {
        try (Statement s = c.createStatement()) {
            s.execute(statement);
        }
    }

    @Override
    public void close() {
        if (watchdog != null) watchdog.close();
    }
}
