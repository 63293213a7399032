package dev.idempotency.store.jdbc;

import com.zaxxer.hikari.HikariDataSource;
import dev.idempotency.store.OwnershipToken;
import dev.idempotency.store.StoreBusyException;
import dev.idempotency.store.StoreException;
import dev.idempotency.store.StoreNotReplicatedException;
import dev.idempotency.store.StoreSettings;
import dev.idempotency.store.StoreUnavailableException;
import dev.idempotency.store.jdbc.PooledWork.Work;
import dev.idempotency.store.jdbc.dialect.Dialect;

import java.sql.Connection;
import java.sql.SQLException;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;

import static dev.idempotency.store.jdbc.PooledWork.ALWAYS;
import static dev.idempotency.store.jdbc.PooledWork.NEVER;

/**
 * The store's two pools and work on them: the request pool, and a small background pool for lease renewals and
 * housekeeping (so requests holding every request connection never starve the heartbeat). Runs work on a connection,
 * repeats what is safe to repeat after a lost connection, and says what a database failure means for the caller
 * ({@link StoreUnavailableException}, {@link StoreNotReplicatedException}, or another {@link StoreException}).
 */
final class StoreConnections implements AutoCloseable {
    private final StoreSettings settings;
    private final HikariDataSource pool;
    private final HikariDataSource background;
    private final PooledWork connections;
    /** Housekeeping takes at most one background connection at a time: the other stays free for renewals. */
    private final Semaphore housekeeping = new Semaphore(1);

    StoreConnections(StoreSettings settings, Dialect dialect, int backgroundPoolSize, PooledWork.Preparation preparation) {
        this.settings = settings;
        this.pool = ConnectionPool.open(settings, dialect);
        this.background = ConnectionPool.openBackground(settings, dialect, backgroundPoolSize);
        this.connections = new PooledWork(settings.connectTimeout(), preparation, pool, background);
    }

    HikariDataSource requestPool() { return pool; }

    HikariDataSource backgroundPool() { return background; }

    <T> T inBatchConnection(BooleanSupplier mayRepeat, Work<T> work) throws SQLException {
        return connections.run(pool, mayRepeat, work);
    }

    /** What a reservation has sent and not yet heard back about: the token that may own the key if its answer is lost. */
    static final class Sent {
        OwnershipToken token;

        /**
         * A write that would give {@code owned} the key: the token counts as possibly reserved from the moment the
         * statement leaves until the database's answer says it did not get in.
         */
        boolean write(JdbcStatements statements, Connection c, OwnershipToken owned, String statement, Object... params)
                throws SQLException {
            token = owned;
            boolean won = statements.update(c, statement, params) == 1;
            if (!won) token = null;
            return won;
        }
    }

    /**
     * A single fenced or conditional write, run once more when it lost a conflict (its row moved to another partition,
     * a deadlock): its conditions are read again, so the second run decides on what the first could not.
     */
    static <T> Work<T> onceMoreOnConflict(Work<T> work) {
        return c -> {
            try {
                return work.run(c);
            } catch (SQLException e) {
                if (!Failures.lostConflict(e)) throw e;
                return work.run(c);
            }
        };
    }

    <T> T withConnection(String operation, Work<T> work) {
        return withConnection(pool, operation, null, NEVER, work);
    }

    /** Work whose second run on a fresh connection changes nothing the first did not: reads, fenced writes. */
    <T> T repeatably(String operation, Work<T> work) {
        return withConnection(pool, operation, null, ALWAYS, work);
    }

    <T> T withConnection(HikariDataSource source, String operation, Sent sent, Work<T> work) {
        return withConnection(source, operation, sent, NEVER, work);
    }

    <T> T withConnection(HikariDataSource source, String operation, Sent sent, BooleanSupplier mayRepeat, Work<T> work) {
        try {
            return connections.run(source, mayRepeat, work);
        } catch (SQLException e) {
            throw translate(e, operation, sent == null ? null : sent.token);
        }
    }

    static StoreException translate(SQLException e, String operation, OwnershipToken possiblyReserved) {
        if (Dialect.NOT_REPLICATED.equals(e.getSQLState())) {
            return new StoreNotReplicatedException("idempotency store wrote without replication during " + operation + ": "
                    + e.getMessage(), e, possiblyReserved);
        }
        if (Failures.unavailable(e) || Failures.lostConflict(e)) {
            return new StoreUnavailableException("idempotency store unavailable during " + operation + ": " + withCause(e), e,
                    possiblyReserved);
        }
        return new StoreException("idempotency store failed during " + operation + ": " + e.getMessage(), e);
    }

    /** The pool's "connection is not available" says nothing of why; the driver's failure beneath it does. */
    private static String withCause(SQLException e) {
        Throwable root = e;
        while (root.getCause() != null && root.getCause() != root) root = root.getCause();
        String message = e.getMessage();
        return root == e || root.getMessage() == null || String.valueOf(message).contains(root.getMessage())
                ? message : message + " (" + root.getMessage().trim() + ")";
    }

    /** Sweep and purge: on the background pool, one at a time, waiting no longer than for a connection. */
    int housekeeping(String operation, Work<Integer> work) {
        try {
            if (!housekeeping.tryAcquire(settings.connectTimeout().toMillis(), TimeUnit.MILLISECONDS)) {
                throw new StoreBusyException("idempotency store busy during " + operation
                        + ": other housekeeping still runs after " + settings.connectTimeout().toMillis() + " ms");
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new StoreUnavailableException("interrupted before " + operation, e);
        }
        try {
            return withConnection(background, operation, null, work);
        } finally {
            housekeeping.release();
        }
    }

    @Override
    public void close() {
        try {
            ConnectionPool.close(pool);
        } finally {
            ConnectionPool.close(background);
        }
    }
}
