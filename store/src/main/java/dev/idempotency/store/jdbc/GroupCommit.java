package dev.idempotency.store.jdbc;

import dev.idempotency.store.StoreException;
import dev.idempotency.store.StoreUnavailableException;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.Semaphore;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.LockSupport;

/**
 * Shares one statement and one commit among the concurrent callers of the same write, as databases share a log flush
 * (group commit). A caller queues its item; whoever finds a lane free leads: it takes everything queued (up to the
 * batch limit), runs it as one batch on one connection, and hands each caller its own outcome. A caller alone finds a
 * lane free and runs at once, a batch of one: nobody ever waits for company. Batches grow only while every lane is
 * busy, that is, exactly when the database is the bottleneck.
 *
 * <p>Followers wait parked, holding no connection. A lane that frees wakes the oldest waiting caller, which leads the
 * next batch; so no item waits longer than the batches ahead of it.
 */
final class GroupCommit<I, R> {

    /** Runs one batch: must settle every item, by {@link Pending#succeed} or {@link Pending#fail}. */
    interface Batch<I, R> {
        void run(List<Pending<I, R>> items);
    }

    /** One caller's item and, once settled, its outcome. */
    static final class Pending<I, R> {
        final I item;
        private final Thread waiter;
        private R result;
        private RuntimeException failure;
        private volatile boolean settled;
        /** In a leader's batch: its caller waits for that batch and never leads for it. */
        private volatile boolean taken;

        Pending(I item, Thread waiter) {
            this.item = item;
            this.waiter = waiter;
        }

        void succeed(R outcome) {
            if (settled) return;
            result = outcome;
            settle();
        }

        void fail(RuntimeException e) {
            if (settled) return;
            failure = e;
            settle();
        }

        boolean settled() { return settled; }

        boolean taken() { return taken; }

        private void settle() {
            settled = true; // published after result/failure: a waiter that sees it sees them
            if (waiter != Thread.currentThread()) LockSupport.unpark(waiter);
        }
    }

    private final ConcurrentLinkedQueue<Pending<I, R>> queue;
    private final Semaphore lanes;
    private final int maxBatch;
    private final Batch<I, R> batch;
    private final String operation;
    private final long maxWaitNanos;
    private final AtomicLong batches = new AtomicLong();
    private final AtomicLong items = new AtomicLong();
    private volatile int largestBatch;

    /** @param maxWaitNanos how long an item may wait in the queue before its caller gives up (nothing was sent for it) */
    GroupCommit(String operation, int lanes, int maxBatch, long maxWaitNanos, Batch<I, R> batch) {
        this(operation, lanes, maxBatch, maxWaitNanos, batch, new ConcurrentLinkedQueue<>());
    }

    /** With the queue given: tests hold a caller at a chosen point of its turn. */
    GroupCommit(String operation, int lanes, int maxBatch, long maxWaitNanos, Batch<I, R> batch, ConcurrentLinkedQueue<Pending<I, R>> queue) {
        if (lanes < 1 || maxBatch < 1) throw new IllegalArgumentException("lanes and maxBatch must be positive");
        this.operation = operation;
        this.maxWaitNanos = maxWaitNanos;
        this.lanes = new Semaphore(lanes);
        this.maxBatch = maxBatch;
        this.batch = batch;
        this.queue = queue;
    }

    /** Runs {@code item} in the next batch and returns its own outcome (or throws its own failure). */
    R submit(I item) {
        Pending<I, R> mine = new Pending<>(item, Thread.currentThread());
        queue.add(mine);
        long deadline = System.nanoTime() + maxWaitNanos;
        boolean interrupted = false;
        while (!mine.settled()) {
            // A caller whose item another leader took only waits: leading then would find its item gone and, with a
            // lane free, take and give back lanes in a busy loop for as long as that batch runs.
            if (!mine.taken && lanes.tryAcquire()) {
                try {
                    lead();
                } finally {
                    lanes.release();
                    wakeNextLeader();
                }
                continue;
            }
            long left = deadline - System.nanoTime();
            // Still queued at the deadline: nothing was sent for it, so the caller may give up cleanly. Once taken into
            // a batch it waits for that batch, which its statement timeout bounds.
            if (left <= 0 && queue.remove(mine)) {
                mine.fail(new StoreUnavailableException("idempotency store busy: a " + operation + " waited "
                        + maxWaitNanos / 1_000_000 + " ms for its turn", null));
                wakeNextLeader();
                break;
            }
            if (left > 0) LockSupport.parkNanos(this, left);
            else LockSupport.park(this); // in a batch: its end (or a free lane) wakes this thread
            // An interrupted thread's park returns at once: remember the interrupt instead of spinning on it.
            if (Thread.interrupted()) interrupted = true;
        }
        if (interrupted) Thread.currentThread().interrupt();
        if (mine.failure != null) throw mine.failure;
        return mine.result;
    }

    /**
     * Runs {@code item} as a batch of its own on the caller's thread: what {@link #submit} does for a caller alone, the
     * same outcomes and the same repeat of a write whose answer was lost, without the queue, the lanes and the hand-over.
     */
    static <I, R> R alone(String operation, I item, Batch<I, R> batch) {
        Pending<I, R> mine = new Pending<>(item, Thread.currentThread());
        mine.taken = true;
        try {
            batch.run(Collections.singletonList(mine));
        } catch (RuntimeException e) {
            mine.fail(e);
        } catch (Error e) {
            mine.fail(new StoreException("idempotency store failed during " + operation + ": " + e, e));
        }
        if (!mine.settled()) mine.fail(new StoreException("idempotency store left a " + operation + " unanswered", null));
        if (mine.failure != null) throw mine.failure;
        return mine.result;
    }

    private void lead() {
        List<Pending<I, R>> taken = new ArrayList<>(Math.min(maxBatch, 16));
        Pending<I, R> next;
        while (taken.size() < maxBatch && (next = queue.poll()) != null) {
            next.taken = true;
            taken.add(next);
        }
        // Cut short by the batch limit: the callers left may have only taken items' callers to wake them, and those
        // now wait for their batches, so the next in line is woken for a lane that may be free.
        if (taken.size() == maxBatch) wakeNextLeader();
        if (taken.isEmpty()) return;
        batches.incrementAndGet();
        items.addAndGet(taken.size());
        if (taken.size() > largestBatch) largestBatch = taken.size();
        try {
            batch.run(taken);
        } catch (RuntimeException e) {
            // The batch settles its callers itself; this is for a fault outside it, given to every caller unsettled.
            for (Pending<I, R> p : taken) p.fail(e);
        } catch (Error e) {
            // Not rethrown: the leader's own item may still be queued, and the callers behind it must not be left parked.
            for (Pending<I, R> p : taken) p.fail(new StoreException("idempotency store failed during " + operation + ": " + e, e));
        } finally {
            for (Pending<I, R> p : taken) {
                if (!p.settled()) p.fail(new StoreException("idempotency store left a " + operation + " unanswered", null));
            }
        }
    }

    private void wakeNextLeader() {
        Pending<I, R> head = queue.peek();
        if (head != null) LockSupport.unpark(head.waiter);
    }

    /** Batches run so far, items in them, and the largest batch: how much sharing the load produced. */
    GroupCommitFigures figures() {
        return new GroupCommitFigures(batches.get(), items.get(), largestBatch);
    }
}
