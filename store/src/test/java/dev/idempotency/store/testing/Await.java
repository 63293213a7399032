package dev.idempotency.store.testing;

import java.time.Duration;
import java.util.function.Supplier;

/** Polls a condition until it holds or a deadline passes; the failure names what was awaited. */
public final class Await {
    private Await() {
    }

    public static <T> T until(String what, Duration timeout, Supplier<T> probe, java.util.function.Predicate<T> done) {
        long deadline = System.nanoTime() + timeout.toNanos();
        T last = null;
        while (System.nanoTime() < deadline) {
            last = probe.get();
            if (done.test(last)) return last;
            try {
                Thread.sleep(20);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new AssertionError("interrupted while awaiting " + what);
            }
        }
        throw new AssertionError("timed out after " + timeout + " awaiting " + what + "; last value: " + last);
    }
}
