package dev.idempotency.store.jdbc;

import java.util.concurrent.atomic.AtomicInteger;

/**
 * Whether a keyed write (a reservation's first insert, a completion) shares a group-commit batch: only while the store
 * is busy. A write alone runs as a batch of its own on the caller's thread ({@code GroupCommit.alone}), sparing the
 * queue and the hand-over between threads; and with two lanes per kind of write, a handful of concurrent writes would
 * queue behind them while connections stay idle. Measured on a stock Tomcat 9 with PostgreSQL (2 cores), group commit
 * for every write gave 15 % less throughput of keyed requests than no group commit at one connection and 20 % less at
 * eight, and 59 % more at 32. So writes run on their own while fewer are in progress than the connections the batches'
 * lanes leave free, and share batches beyond that.
 */
final class WriteLoad {
    private final AtomicInteger running = new AtomicInteger();
    private final int unbatched;

    /** @param lanes the lanes of each of the two group commits (reservations, completions) */
    WriteLoad(int poolSize, int lanes) {
        this.unbatched = Math.max(0, poolSize - 2 * lanes);
    }

    /** A write starts; whether it should join a batch. Every call is followed by {@link #end}. */
    boolean start() {
        return running.getAndIncrement() >= unbatched;
    }

    void end() {
        running.decrementAndGet();
    }

    /** How many writes run on their own before the next joins a batch. */
    int unbatched() { return unbatched; }
}
