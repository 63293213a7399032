package dev.idempotency.store.upkeep;

import java.util.concurrent.TimeUnit;
import java.util.function.LongSupplier;

/**
 * How far back a sweep of expired leases looks, for every store family. Completed keys keep their lease on JDBC (that
 * is what lets a completion be a heap-only update on PostgreSQL), so the lease index holds every key, and a sweep that
 * read every lease in the past would read the whole history each time. Instead each sweep reads the leases that ran
 * out since the previous complete sweep started, plus a margin for a write that committed late; the first looks back
 * {@link #FIRST_LOOK_BACK_MILLIS}. Only durations of this node's monotonic clock are used: the bound itself is the
 * database's time minus that many milliseconds. A lease that ran out while no node swept for longer than the look-back
 * is caught by the purge's backstop once its key's ttl is over, and until then a retry of that key finds the expired
 * lease by itself, as it always has.
 */
public final class SweepHorizon {
    /** The first sweep of a node: a node restarted after a crash finds the leases of its own abandoned requests. */
    static final long FIRST_LOOK_BACK_MILLIS = TimeUnit.HOURS.toMillis(1);
    /** Beyond the previous sweep's start: a reservation or renewal whose commit came late is still read. */
    static final long MARGIN_MILLIS = TimeUnit.SECONDS.toMillis(10);

    private final LongSupplier nanoTime;
    private boolean swept;
    private long lastStartNanos;

    public SweepHorizon(LongSupplier nanoTime) {
        this.nanoTime = nanoTime;
    }

    /** A sweep starting now: how many milliseconds back from the database's time it reads, and when it started. */
    public synchronized long[] start() {
        long now = nanoTime.getAsLong();
        // After sweeps that failed (the database away), back to the last one that completed: each lease is read once.
        long lookBack = swept ? TimeUnit.NANOSECONDS.toMillis(now - lastStartNanos) + MARGIN_MILLIS : FIRST_LOOK_BACK_MILLIS;
        return new long[] {lookBack, now};
    }

    /** The sweep that {@link #start} began read everything it looked at: the next looks back to its start. */
    public synchronized void completed(long startNanos) {
        if (!swept || startNanos - lastStartNanos > 0) lastStartNanos = startNanos;
        swept = true;
    }
}
