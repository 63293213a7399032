package dev.idempotency.agent.core.gate;

import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Duplicates that wait for the request holding their key to end ({@code idempotency.on-in-flight=wait:…}). A request
 * of this JVM that ends its key wakes the waiters for it at once, and they look at the key only then; a holder on
 * another node is noticed by looking at the key again from time to time. Waiting holds a container thread, never a
 * database connection.
 */
final class InFlightWaits {
    /** The first look again at a key held elsewhere, doubled up to {@link #LONGEST_POLL_MILLIS}. */
    static final long FIRST_POLL_MILLIS = 50;
    static final long LONGEST_POLL_MILLIS = 500;
    /** How often a waiter whose key is held here checks that it still is (no store access). */
    static final long LOCAL_RECHECK_MILLIS = 1000;

    private final boolean enabled;
    private final ConcurrentHashMap<String, Signal> byKey = new ConcurrentHashMap<>();
    private final AtomicInteger waiting = new AtomicInteger();
    /** Keys held by requests of this JVM now, with how many hold them (a key taken over here is briefly held twice). */
    private final ConcurrentHashMap<String, Integer> heldHere = new ConcurrentHashMap<>();

    /** @param enabled whether anybody may wait: without, holders are not tracked and a keyed request pays nothing here */
    InFlightWaits(boolean enabled) {
        this.enabled = enabled;
    }

    /** Where the waiters for one key wait; counts its waiters so that the last one to leave removes it. */
    static final class Signal {
        private final String id;
        private int waiters;
        private long ends;

        private Signal(String id) {
            this.id = id;
        }

        /** How many times the key's holder ended it so far: what a waiter compares against. */
        synchronized long ends() {
            return ends;
        }

        /**
         * Waits until the key ended after {@code seen}, at most {@code millis}; false when interrupted (the interrupt
         * stays set).
         */
        synchronized boolean awaitEndAfter(long seen, long millis) {
            long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(millis);
            try {
                for (long left = millis; ends == seen && left > 0; left = millisUntil(deadline)) wait(left);
                return true;
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return false;
            }
        }

        private synchronized void ended() {
            ends++;
            notifyAll();
        }
    }

    /** Starts waiting for a key: before the first look at it, so that an end in between is not missed. */
    Signal join(String scope, String key) {
        return byKey.compute(id(scope, key), (id, signal) -> {
            Signal s = signal == null ? new Signal(id) : signal;
            synchronized (s) {
                s.waiters++;
            }
            return s;
        });
    }

    void leave(Signal signal) {
        byKey.computeIfPresent(signal.id, (id, s) -> {
            synchronized (s) {
                return --s.waiters == 0 ? null : s;
            }
        });
    }

    /** A request of this JVM now holds the key. */
    void held(String scope, String key) {
        if (enabled) heldHere.merge(id(scope, key), 1, Integer::sum);
    }

    /** Whether a request of this JVM holds the key: its end will wake the waiters, who need not look before. */
    boolean heldHere(String scope, String key) {
        return heldHere.containsKey(id(scope, key));
    }

    /** The request of this JVM that held the key has ended (its end may still be on its way to the store). */
    void notHeld(String scope, String key) {
        if (enabled) heldHere.computeIfPresent(id(scope, key), (k, holders) -> holders == 1 ? null : holders - 1);
    }

    /** The request holding a key wrote its end (recorded, released or marked): its waiters look again now. */
    void ended(String scope, String key) {
        if (byKey.isEmpty()) return; // the usual case: nobody waits
        Signal signal = byKey.get(id(scope, key));
        if (signal != null) signal.ended();
    }

    /** Requests waiting now (found their key in flight, and wait). */
    int waiting() {
        return waiting.get();
    }

    void waitingStarted() {
        waiting.incrementAndGet();
    }

    void waitingEnded() {
        waiting.decrementAndGet();
    }

    /** Keys waited for or held here now (for tests: nothing stays behind). */
    int keysKnown() {
        return byKey.size() + heldHere.size();
    }

    /** Whole milliseconds until {@code deadline}, rounded up: a wait never ends before it. */
    static long millisUntil(long deadline) {
        long nanos = deadline - System.nanoTime();
        return nanos <= 0 ? 0 : (nanos + 999_999) / 1_000_000;
    }

    private static String id(String scope, String key) {
        return scope + '\u0000' + key;
    }
}
