package dev.idempotency.store.redis;

import java.util.concurrent.TimeUnit;

/**
 * How far back a sweep of expired leases looks, as for every store family: the leases that ran out since the previous
 * complete sweep started plus a margin; the first sweep of a node looks back an hour. A lease that ran out while no
 * node swept for longer is caught by the purge once its key's ttl is over, and until then a retry of that key finds
 * the expired lease by itself. Only durations of this node's monotonic clock are used: the bound itself is the
 * server's time less that many milliseconds, computed in the script. (The JDBC family has its own copy: the families
 * share nothing but the API.)
 */
final class SweepLookBack {
    static final long FIRST_LOOK_BACK_MILLIS = TimeUnit.HOURS.toMillis(1);
    static final long MARGIN_MILLIS = TimeUnit.SECONDS.toMillis(10);

    private boolean swept;
    private long lastStartNanos;

    /** A sweep starting now: how many milliseconds back it reads, and when it started. */
    synchronized long[] start() {
        long now = System.nanoTime();
        long lookBack = swept ? TimeUnit.NANOSECONDS.toMillis(now - lastStartNanos) + MARGIN_MILLIS
                : FIRST_LOOK_BACK_MILLIS;
        return new long[] {lookBack, now};
    }

    /** The sweep that {@link #start} began read everything it looked at: the next looks back to its start. */
    synchronized void completed(long startNanos) {
        if (!swept || startNanos - lastStartNanos > 0) lastStartNanos = startNanos;
        swept = true;
    }
}
