package dev.idempotency.store.jdbc;

import java.util.concurrent.atomic.AtomicInteger;

/**
 * Whether a keyed write (a reservation's first insert, a completion) shares a group-commit batch: only while the store
 * is busy. A write alone runs as a batch of its own on the caller's thread ({@code GroupCommit.alone}), sparing the
 * queue and the hand-over between threads, which cost more CPU per write than the commits they share save while every
 * write can have a connection of its own (measured at eight connections against a pool of ten: 209 against 247 µs of
 * server CPU per keyed request). Measured on a stock Tomcat 9 with PostgreSQL (2 cores), group commit for every write
 * gave 15 % less throughput of keyed requests than no group commit at one connection and 20 % less at eight, and 59 %
 * more at 32; and writes that run on their own until the pool is full leave batches no connection to run on (a quarter
 * less at 32 connections). So batching starts once more writes are in progress than the pool holds less one lane's
 * share, and then stays on, every write joining a batch, until fewer are in progress than the connections the lanes
 * leave free.
 */
final class WriteLoad {
    private final AtomicInteger running = new AtomicInteger();
    /** Writes already in progress at which the next one starts batching. */
    private final int batchFrom;
    /** While batching, writes in progress below which the next one runs on its own again. */
    private final int aloneBelow;
    /** Read and written without a lock: a write that reads it a little late only picks the other way once. */
    private volatile boolean batching;

    /** @param lanes the lanes of each of the two group commits (reservations, completions) */
    WriteLoad(int poolSize, int lanes) {
        this.aloneBelow = Math.max(0, poolSize - 2 * lanes);
        this.batchFrom = aloneBelow == 0 ? 0 : poolSize - lanes;
        this.batching = aloneBelow == 0; // the lanes take the whole pool: every write joins a batch
    }

    /** A write starts; whether it should join a batch. Every call is followed by {@link #end}. */
    boolean start() {
        int before = running.getAndIncrement();
        if (batching) {
            if (before >= aloneBelow) return true;
            batching = false;
            return false;
        }
        if (before < batchFrom) return false;
        batching = true;
        return true;
    }

    void end() {
        running.decrementAndGet();
    }

    /** How many writes run on their own before the next starts batching. */
    int batchFrom() { return batchFrom; }
}
