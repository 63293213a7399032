package dev.idempotency.agent.core.gate;

import java.lang.ref.PhantomReference;
import java.lang.ref.Reference;
import java.lang.ref.ReferenceQueue;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The bytes the agent may hold at once for keyed requests, across all of them: request bodies it took and responses it
 * holds until they are recorded. A request body is admitted only while the bodies already held leave half the budget
 * free (the other half is for their responses), else the request is refused with 503 before a byte of it is read; a
 * response that would overrun the whole budget streams to the client instead and is recorded as not kept. So the agent
 * can never be the reason the JVM runs out of memory, whatever the concurrency.
 *
 * <p>Charges are released where an exchange ends; one that an unusual path forgets is released once the object it
 * was charged for has been collected, so the budget cannot leak away.
 */
public final class MemoryBudget {
    private final long limit;
    private final AtomicLong used = new AtomicLong();
    private final ReferenceQueue<Object> collected = new ReferenceQueue<>();
    /** Keeps the trackers themselves reachable until their referent is collected or the charge is released. */
    private final Set<Tracker> tracked = ConcurrentHashMap.newKeySet();

    public MemoryBudget(long limit) {
        if (limit < 0) throw new IllegalArgumentException("limit must not be negative");
        this.limit = limit;
    }

    public long limit() { return limit; }

    /** Bytes charged now. */
    public long used() {
        reclaim();
        return used.get();
    }

    /** A charge for a request body of {@code bytes}, or null when admitting it would leave less than half the budget. */
    public Charge admit(long bytes) {
        return reserve(bytes, limit / 2) ? new Charge(bytes) : null;
    }

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
            Tracker t = new Tracker(holder, this, collected);
            tracked.add(t);
            tracker = t;
            if (released.get()) forget(t);
            return this;
        }

        /** Charges {@code more} bytes; false, charging nothing, when that would overrun the budget or it was released. */
        public boolean grow(long more) {
            if (released.get() || !reserve(more, limit)) return false;
            bytes.addAndGet(more);
            if (released.get()) { // released meanwhile: give it back, nothing may stay charged
                used.addAndGet(-bytes.getAndSet(0));
                return false;
            }
            return true;
        }

        /** Gives the bytes back; again does nothing. */
        public void release() {
            if (!released.compareAndSet(false, true)) return;
            used.addAndGet(-bytes.getAndSet(0));
            Tracker t = tracker;
            if (t != null) forget(t);
        }

        public long bytes() { return bytes.get(); }
    }

    private void forget(Tracker t) {
        tracked.remove(t);
        t.clear();
    }

    private static final class Tracker extends PhantomReference<Object> {
        final Charge charge;

        Tracker(Object referent, Charge charge, ReferenceQueue<Object> queue) {
            super(referent, queue);
            this.charge = charge;
        }
    }
}
