package dev.idempotency.agent.core.inprocess;

import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;

import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Keeps the first request of a reference inside the application until the test lets it go: a request that is still
 * running, without sleeping. Later requests of the reference pass, so without the agent a duplicate runs at once.
 */
final class Holds {
    private static final Map<String, Hold> ARMED = new ConcurrentHashMap<>();
    /** Longest a held request waits for its release: a failing test must not hang the run. */
    private static final long MAX_HOLD_SECONDS = 20;

    private Holds() {
    }

    /** The test's side: holds the next request of {@code ref} that reaches the application. */
    static Hold arm(String ref) {
        Hold hold = new Hold();
        ARMED.put(ref, hold);
        return hold;
    }

    /** The application's side: waits here while this is the held request of {@code ref}. */
    static void pass(String ref) {
        Hold hold = ARMED.get(ref);
        if (hold == null || !hold.taken.compareAndSet(false, true)) return;
        hold.arrived.countDown();
        try {
            hold.released.await(MAX_HOLD_SECONDS, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    static final class Hold implements AutoCloseable {
        private final AtomicBoolean taken = new AtomicBoolean();
        private final CountDownLatch arrived = new CountDownLatch(1);
        private final CountDownLatch released = new CountDownLatch(1);

        void awaitArrival() throws InterruptedException {
            assertTrue(arrived.await(10, TimeUnit.SECONDS), "the first request never reached the application");
        }

        @Override
        public void close() {
            released.countDown();
        }
    }
}
