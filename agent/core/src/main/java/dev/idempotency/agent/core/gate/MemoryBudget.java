package dev.idempotency.agent.core.gate;

import java.lang.ref.PhantomReference;
import java.lang.ref.Reference;
import java.lang.ref.ReferenceQueue;
import java.util.ArrayDeque;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;

/**
 * The bytes the agent may hold at once for keyed requests, across all of them: request bodies it took and responses it
 * holds until they are recorded. A request body is admitted only while the bodies already held leave half the budget
 * free (the other half is for their responses); otherwise the request waits, before a byte of it is read, first come
 * first served, up to a limit, and is then refused with 503. A response that would overrun the whole budget streams to
 * the client instead and is recorded as not kept. So the agent can never be the reason the JVM runs out of memory,
 * whatever the concurrency, and a burst is served in turn rather than refused.
 *
 * <p>Charges are released where an exchange ends; one that an unusual path forgets is released once the object it
 * was charged for has been collected, so the budget cannot leak away.
 */
public final class MemoryBudget {
    private final long limit;
    private final AtomicLong used = new AtomicLong();
    private final ReferenceQueue<Object> collected = new ReferenceQueue<>();
    /**
     * Keep the trackers themselves reachable until their referent is collected or the charge is released: lists linked
     * through the trackers, one picked by the thread, so that holding one costs a short lock rather than a hash-set
     * entry (measured: the set's add and remove were about a microsecond of a keyed request's CPU).
     */
    private final TrackerList[] tracked = new TrackerList[TRACKER_LISTS];
    private static final int TRACKER_LISTS = 16;
    /** Requests waiting for room, in arrival order: only the first may take it, so none is passed over for ever. */
    private final ArrayDeque<Object> queue = new ArrayDeque<>();
    private final AtomicInteger waiting = new AtomicInteger();
    private final ReentrantLock lock = new ReentrantLock();
    private final Condition roomFreed = lock.newCondition();

    public MemoryBudget(long limit) {
        if (limit < 0) throw new IllegalArgumentException("limit must not be negative");
        this.limit = limit;
        for (int i = 0; i < TRACKER_LISTS; i++) tracked[i] = new TrackerList();
    }

    public long limit() { return limit; }

    /** Bytes charged now. */
    public long used() {
        reclaim();
        return used.get();
    }

    /** A charge for a request body of {@code bytes}, or null when admitting it would leave less than half the budget. */
    public Charge admit(long bytes) {
        return admit(bytes, 0);
    }

    /**
     * As {@link #admit(long)}, waiting up to {@code waitNanos} for room behind the requests that came first; null when
     * there was none in time (or the thread was interrupted: the interrupt stays set).
     */
    public Charge admit(long bytes, long waitNanos) {
        if (waiting.get() == 0 && reserve(bytes, limit / 2)) return new Charge(bytes);
        if (waitNanos <= 0 || bytes > limit / 2) return null;
        long deadline = System.nanoTime() + waitNanos;
        Object turn = new Object();
        lock.lock();
        try {
            queue.addLast(turn);
            waiting.incrementAndGet();
            try {
                while (true) {
                    if (queue.peekFirst() == turn && reserve(bytes, limit / 2)) return new Charge(bytes);
                    long left = deadline - System.nanoTime();
                    if (left <= 0) return null;
                    roomFreed.awaitNanos(left);
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return null;
            } finally {
                queue.remove(turn);
                waiting.decrementAndGet();
                roomFreed.signalAll(); // the next in line may fit now
            }
        } finally {
            lock.unlock();
        }
    }

    /** Requests waiting for room now. */
    public int waiting() { return waiting.get(); }

    /** An empty charge that grows with a response buffer ({@link Charge#grow}) up to the whole budget. */
    public Charge open() {
        return new Charge(0);
    }

    private boolean reserve(long bytes, long ceiling) {
        reclaim();
        while (true) {
            long now = used.get();
            if (now + bytes > ceiling) return false;
            if (used.compareAndSet(now, now + bytes)) return true;
        }
    }

    private void reclaim() {
        for (Reference<?> r; (r = collected.poll()) != null; ) ((Tracker) r).charge.release();
    }

    private void giveBack(long bytes) {
        used.addAndGet(-bytes);
        if (bytes > 0 && waiting.get() > 0) {
            lock.lock();
            try {
                roomFreed.signalAll();
            } finally {
                lock.unlock();
            }
        }
    }

    /** Bytes charged to one request body or one response buffer. */
    public final class Charge {
        private final AtomicLong bytes;
        private final AtomicBoolean released = new AtomicBoolean();
        private volatile Tracker tracker;

        private Charge(long bytes) {
            this.bytes = new AtomicLong(bytes);
        }

        /** Released at the latest once {@code holder} has been collected. */
        public Charge heldBy(Object holder) {
            Tracker t = new Tracker(holder, this, collected,
                    tracked[(int) (Thread.currentThread().getId() & (TRACKER_LISTS - 1))]);
            t.list.add(t);
            tracker = t;
            if (released.get()) forget(t);
            return this;
        }

        /** Charges {@code more} bytes; false, charging nothing, when that would overrun the budget or it was released. */
        public boolean grow(long more) {
            if (released.get() || !reserve(more, limit)) return false;
            bytes.addAndGet(more);
            if (released.get()) { // released meanwhile: give it back, nothing may stay charged
                giveBack(bytes.getAndSet(0));
                return false;
            }
            return true;
        }

        /** Gives the bytes back; again does nothing. */
        public void release() {
            if (!released.compareAndSet(false, true)) return;
            giveBack(bytes.getAndSet(0));
            Tracker t = tracker;
            if (t != null) forget(t);
        }

        public long bytes() { return bytes.get(); }
    }

    /** Trackers still linked: charges held by an object and not yet released or reclaimed (for tests). */
    int trackersLinked() {
        int n = 0;
        for (TrackerList list : tracked) n += list.size();
        return n;
    }

    /**
     * Unlinked, a tracker is collected without ever being enqueued; not cleared, as clearing a reference is a native
     * call that cost more than the rest of the bookkeeping (should it still be enqueued, its charge's second release
     * does nothing).
     */
    private static void forget(Tracker t) {
        t.list.remove(t);
    }

    private static final class Tracker extends PhantomReference<Object> {
        final Charge charge;
        final TrackerList list;
        // previous, next and linked: guarded by list
        Tracker previous;
        Tracker next;
        boolean linked;

        Tracker(Object referent, Charge charge, ReferenceQueue<Object> queue, TrackerList list) {
            super(referent, queue);
            this.charge = charge;
            this.list = list;
        }
    }

    /** A doubly linked list through its trackers: adding and removing one touch its neighbours only. */
    private static final class TrackerList {
        private Tracker head;

        synchronized void add(Tracker t) {
            t.next = head;
            if (head != null) head.previous = t;
            head = t;
            t.linked = true;
        }

        synchronized int size() {
            int n = 0;
            for (Tracker t = head; t != null; t = t.next) n++;
            return n;
        }

        /** Removing one that is no longer linked does nothing. */
        synchronized void remove(Tracker t) {
            if (!t.linked) return;
            if (t.previous != null) t.previous.next = t.next;
            else head = t.next;
            if (t.next != null) t.next.previous = t.previous;
            t.previous = null;
            t.next = null;
            t.linked = false;
        }
    }
}
