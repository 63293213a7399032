package dev.idempotency.store.jdbc;

import java.sql.SQLException;
import java.sql.Statement;
import java.util.Iterator;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;

/**
 * Cancels the store's statements that run past the query timeout, from one thread of its own. The PostgreSQL driver's
 * query timeout schedules a task on its shared timer for every statement and wakes the timer's thread each time (3.4 %
 * of the JVM's CPU under keyed requests at one connection, plus a wake-up in every statement's path); here a statement
 * costs a map entry, and this thread looks every {@link #TICK_MILLIS} ms while any is watched, and sleeps otherwise.
 *
 * <p>The cancel is the driver's own {@link Statement#cancel()}, as its timer would call it: a statement that already
 * finished ignores it, and the driver keeps a cancel from reaching the connection's next statement. A statement stays
 * watched until this thread finds it closed (each is executed once, right after it is prepared) or past its deadline.
 */
final class StatementWatchdog implements AutoCloseable {

    /** How late a cancel may come: far below the network timeout, which waits {@code NETWORK_GRACE_SECONDS} longer. */
    static final long TICK_MILLIS = 100;

    private final Map<Statement, Long> deadlines = new ConcurrentHashMap<>();
    private final Thread thread;
    private volatile boolean sleeping;
    private volatile boolean closed;

    StatementWatchdog(String name) {
        thread = new Thread(this::watch, name);
        thread.setDaemon(true);
        // Never a web application's loader: the store outlives any one of them.
        thread.setContextClassLoader(StatementWatchdog.class.getClassLoader());
        thread.start();
    }

    /** Cancels {@code statement} if it has not been closed {@code timeoutNanos} from now. */
    void watch(Statement statement, long timeoutNanos) {
        deadlines.put(statement, System.nanoTime() + timeoutNanos);
        // Read after the put, as the watcher sets it before it looks once more: one of the two sees the other.
        if (sleeping) LockSupport.unpark(thread);
    }

    /** Statements watched now, closed ones not yet noticed included. */
    int watched() {
        return deadlines.size();
    }

    private void watch() {
        while (!closed) {
            if (deadlines.isEmpty()) {
                sleeping = true;
                if (deadlines.isEmpty() && !closed) LockSupport.park(this);
                sleeping = false;
                continue;
            }
            LockSupport.parkNanos(this, TimeUnit.MILLISECONDS.toNanos(TICK_MILLIS));
            long now = System.nanoTime();
            for (Iterator<Map.Entry<Statement, Long>> it = deadlines.entrySet().iterator(); it.hasNext(); ) {
                Map.Entry<Statement, Long> entry = it.next();
                Statement statement = entry.getKey();
                if (isClosed(statement)) {
                    it.remove();
                } else if (now - entry.getValue() >= 0) {
                    it.remove();
                    cancel(statement);
                }
            }
        }
        deadlines.clear();
    }

    private static boolean isClosed(Statement statement) {
        try {
            return statement.isClosed();
        } catch (SQLException | RuntimeException e) {
            return true;
        }
    }

    private static void cancel(Statement statement) {
        try {
            statement.cancel();
        } catch (SQLException | RuntimeException e) {
            // Closed meanwhile, or the server unreachable: the network timeout then ends the statement.
        }
    }

    @Override
    public void close() {
        closed = true;
        LockSupport.unpark(thread);
    }
}
