package dev.idempotency.store.jdbc;

import com.zaxxer.hikari.HikariDataSource;
import com.zaxxer.hikari.HikariPoolMXBean;

import java.sql.Connection;
import java.sql.SQLException;
import java.sql.SQLRecoverableException;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.BooleanSupplier;

/**
 * Runs the store's work on pooled connections, and recovers from a connection lost in use (its server died, shut down
 * or turned read-only in a failover): every pooled connection to that server is suspect and dropped, so that the next
 * callers connect afresh instead of each failing on a dead one; work that is safe to run twice runs once more.
 */
final class PooledWork {

    /** Work on one connection. */
    interface Work<T> {
        T run(Connection connection) throws SQLException;
    }

    /** What every connection needs before its first work (the schema, once). */
    interface Preparation {
        void prepare(Connection connection) throws SQLException;
    }

    static final BooleanSupplier ALWAYS = () -> true;
    static final BooleanSupplier NEVER = () -> false;

    private final HikariDataSource[] pools;
    private final long dropWindowNanos;
    private final Preparation preparation;
    /** When the pools' connections were last dropped after a lost one (System.nanoTime()). */
    private final AtomicLong lastDropped = new AtomicLong(System.nanoTime() - Long.MAX_VALUE / 2);

    /** {@code dropWindow}: pools are dropped at most once in it; connections made since the last drop are fresh. */
    PooledWork(Duration dropWindow, Preparation preparation, HikariDataSource... pools) {
        this.pools = pools.clone();
        this.dropWindowNanos = dropWindow.toNanos();
        this.preparation = preparation;
    }

    /**
     * Runs {@code work} on a connection of {@code source}. Work that {@code mayRepeat} says is safe to run twice, when
     * its connection was lost or it lost a conflict, runs once more on a fresh connection.
     */
    <T> T run(HikariDataSource source, BooleanSupplier mayRepeat, Work<T> work) throws SQLException {
        SQLException firstFailure = null;
        for (int attempt = 1; ; attempt++) {
            Connection c = source.getConnection(); // a failure here is the pool's own: it has already waited
            try {
                preparation.prepare(c);
                return work.run(c);
            } catch (SQLException e) {
                boolean lost = Failures.lostConnection(e);
                if (lost) drop(source, c);
                if (attempt > 1) throw afterRepeat(e, firstFailure);
                if (!(lost || Failures.lostConflict(e)) || !mayRepeat.getAsBoolean()) throw e;
                firstFailure = e;
            } finally {
                c.close();
            }
        }
    }

    /**
     * The failure of a repeat. When the first attempt lost its connection, what it sent may have been done, whatever the
     * repeat then met (a conflict, say): that stays an outage, so that its caller keeps the possibly reserved token
     * instead of assuming that nothing stays.
     */
    private static SQLException afterRepeat(SQLException repeat, SQLException first) {
        if (first == null || !Failures.lostConnection(first) || Failures.unavailable(repeat)) return repeat;
        SQLException outage = new SQLRecoverableException("connection lost, and its repeat failed: " + repeat.getMessage(),
                first.getSQLState(), first.getErrorCode(), first);
        outage.addSuppressed(repeat);
        return outage;
    }

    /** Evicts the lost connection, and every pooled one unless that was done within the drop window. */
    private void drop(HikariDataSource source, Connection lost) {
        source.evictConnection(lost);
        long now = System.nanoTime();
        long last = lastDropped.get();
        if (now - last < dropWindowNanos || !lastDropped.compareAndSet(last, now)) return;
        for (HikariDataSource each : pools) {
            HikariPoolMXBean figures = each.getHikariPoolMXBean();
            if (figures != null) figures.softEvictConnections();
        }
    }
}
