package dev.idempotency.store.jdbc;

import dev.idempotency.store.jdbc.dialect.Dialect;

import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.Iterator;
import java.util.Queue;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;

/**
 * Cancels the store's statements that run past the query timeout, from one thread of its own, instead of a driver
 * timer task per statement (why, for PostgreSQL: {@code PostgresDialect#cancelsFromWatchdog}). A statement costs an
 * entry in a queue (not a map's: a new statement's identity hash is a call into the JVM, and the map showed in
 * profiles); this thread looks every {@link #TICK_MILLIS} ms while any is watched, and sleeps otherwise.
 *
 * <p>The cancel is the driver's own {@link Statement#cancel()}, as its timer would call it: a statement that already
 * finished ignores it, and the driver keeps a cancel from reaching the connection's next statement. A statement stays
 * watched until this thread finds it closed (each is executed once, right after it is prepared) or past its deadline.
 * Nothing a statement throws stops this thread; should it end all the same, {@link #watch} hands the timeout back to
 * the driver.
 */
final class StatementWatchdog implements AutoCloseable {

    /** How late a cancel may come: far below the network timeout, which waits {@code NETWORK_GRACE_SECONDS} longer. */
    private static final long TICK_MILLIS = 100;

    private final Queue<Watched> deadlines = new ConcurrentLinkedQueue<>();
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

    /**
     * Cancels {@code statement} if it has not been closed {@code timeoutNanos} from now. Once per statement: a second
     * call would add a second deadline, not replace the first.
     */
    void watch(Statement statement, long timeoutNanos) throws SQLException {
        if (!thread.isAlive()) {
            // Never a statement without its timeout: should this thread ever end, the driver's own timer takes over.
            statement.setQueryTimeout(Dialect.seconds(Duration.ofNanos(timeoutNanos)));
            return;
        }
        deadlines.add(new Watched(statement, System.nanoTime() + timeoutNanos));
        // Read after the add, as the watcher sets it before it looks once more: one of the two sees the other.
        if (sleeping) LockSupport.unpark(thread);
    }

    /** Statements watched now, closed ones not yet noticed included (counted one by one: for tests). */
    int watched() {
        return deadlines.size();
    }

    private void watch() {
        while (!closed) {
            Thread.interrupted(); // only close() stops this thread; a stray interrupt would make every park return at once
            try {
                lookOnce();
            } catch (Throwable e) {
                // An OutOfMemoryError under the application's heap pressure, say: the statements watched still need
                // their cancels, so look again at the next tick.
            }
        }
        deadlines.clear();
    }

    private void lookOnce() {
        if (deadlines.isEmpty()) {
            sleeping = true;
            if (deadlines.isEmpty() && !closed) LockSupport.park(this);
            sleeping = false;
            return;
        }
        LockSupport.parkNanos(this, TimeUnit.MILLISECONDS.toNanos(TICK_MILLIS));
        long now = System.nanoTime();
        for (Iterator<Watched> it = deadlines.iterator(); it.hasNext(); ) {
            Watched entry = it.next();
            Statement statement = entry.statement;
            if (isClosed(statement)) {
                it.remove();
            } else if (now - entry.deadline >= 0) {
                it.remove();
                cancel(statement);
            }
        }
    }

    /** Closed for certain; a statement that cannot say (whatever it throws) stays watched until its deadline. */
    private static boolean isClosed(Statement statement) {
        try {
            return statement.isClosed();
        } catch (Throwable e) {
            return false;
        }
    }

    private static void cancel(Statement statement) {
        try {
            statement.cancel();
        } catch (Throwable e) {
            // Closed meanwhile, or the server unreachable: the network timeout then ends the statement. Nothing one
            // statement throws may keep the others from their cancels.
        }
    }

    private static final class Watched {
        final Statement statement;
        final long deadline;

        Watched(Statement statement, long deadline) {
            this.statement = statement;
            this.deadline = deadline;
        }
    }

    @Override
    public void close() {
        closed = true;
        LockSupport.unpark(thread);
    }
}
