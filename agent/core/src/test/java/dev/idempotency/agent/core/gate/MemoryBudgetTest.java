package dev.idempotency.agent.core.gate;

import org.junit.jupiter.api.Test;

import java.io.ByteArrayOutputStream;
import java.io.OutputStream;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.List;
import java.util.Queue;
import java.util.Random;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

class MemoryBudgetTest {

    /** Asks for room on another thread, willing to wait for it. */
    private static CompletableFuture<MemoryBudget.Charge> admitWaiting(MemoryBudget budget, long bytes) {
        return CompletableFuture.supplyAsync(() -> budget.admit(bytes, Duration.ofSeconds(30).toNanos()));
    }

    @Test
    void requestBodiesAreAdmittedUpToHalfTheBudgetAndReleasedOnce() {
        MemoryBudget budget = new MemoryBudget(1000);
        MemoryBudget.Charge first = budget.admit(300);
        assertNotNull(first);
        assertNotNull(budget.admit(200));
        assertNull(budget.admit(1), "half the budget is for responses");
        assertEquals(500, budget.used());
        first.release();
        first.release();
        assertEquals(200, budget.used());
        assertNotNull(budget.admit(300));
    }

    @Test
    void aBodyThatDoesNotFitWaitsForRoomAndIsAdmittedWhenABodyIsReleased() throws Exception {
        MemoryBudget budget = new MemoryBudget(1000);
        MemoryBudget.Charge held = budget.admit(400);
        CompletableFuture<MemoryBudget.Charge> waiter = admitWaiting(budget, 300);
        awaitWaiting(budget, 1);
        assertFalse(waiter.isDone());
        held.release();
        MemoryBudget.Charge admitted = waiter.get(30, TimeUnit.SECONDS);
        assertNotNull(admitted);
        assertEquals(300, budget.used());
        assertEquals(0, budget.waiting());
    }

    @Test
    void waitersAreServedInArrivalOrderAndNewcomersDoNotBargeIn() throws Exception {
        MemoryBudget budget = new MemoryBudget(1000);
        MemoryBudget.Charge held = budget.admit(500);
        CompletableFuture<MemoryBudget.Charge> first = admitWaiting(budget, 400);
        awaitWaiting(budget, 1);
        CompletableFuture<MemoryBudget.Charge> second = admitWaiting(budget, 100);
        awaitWaiting(budget, 2);
        assertNull(budget.admit(1), "a newcomer waits behind those already waiting, even when it would fit");
        held.release();
        assertNotNull(first.get(30, TimeUnit.SECONDS));
        assertNotNull(second.get(30, TimeUnit.SECONDS));
        assertEquals(500, budget.used());
    }

    @Test
    void aWaitThatRunsOutOrIsInterruptedAdmitsNothing() throws Exception {
        MemoryBudget budget = new MemoryBudget(1000);
        assertNotNull(budget.admit(500));
        assertNull(budget.admit(10, Duration.ofMillis(50).toNanos()));
        Thread.currentThread().interrupt();
        try {
            assertNull(budget.admit(10, Duration.ofSeconds(30).toNanos()));
            assertTrue(Thread.currentThread().isInterrupted(), "the interrupt is kept for the container");
        } finally {
            Thread.interrupted();
        }
        assertEquals(500, budget.used());
        assertEquals(0, budget.waiting());
    }

    private static void awaitWaiting(MemoryBudget budget, int n) throws InterruptedException {
        long deadline = System.nanoTime() + Duration.ofSeconds(20).toNanos();
        while (budget.waiting() < n) {
            if (System.nanoTime() > deadline) throw new AssertionError("no " + n + " waiters: " + budget.waiting());
            Thread.sleep(1);
        }
    }

    @Test
    void responsesMayUseTheWholeBudgetButNeverMore() {
        MemoryBudget budget = new MemoryBudget(1000);
        assertNotNull(budget.admit(500));
        MemoryBudget.Charge response = budget.open();
        assertTrue(response.grow(400));
        assertFalse(response.grow(101));
        assertTrue(response.grow(100));
        assertEquals(1000, budget.used());
        response.release();
        assertFalse(response.grow(1), "a released charge takes nothing more");
        assertEquals(500, budget.used());
    }

    @Test
    void aChargeNobodyReleasedIsReclaimedOnceItsHolderIsCollected() throws InterruptedException {
        MemoryBudget budget = new MemoryBudget(1000);
        budget.admit(400).heldBy(new byte[64]); // the holder is garbage at once
        MemoryBudget.Charge kept = budget.admit(100);
        Object holder = new Object();
        kept.heldBy(holder);
        long deadline = System.nanoTime() + Duration.ofSeconds(20).toNanos();
        while (budget.used() != 100 && System.nanoTime() < deadline) {
            System.gc();
            Thread.sleep(10); // reference processing runs on its own thread after a collection
        }
        assertEquals(100, budget.used(), "only the charge whose holder is alive stays");
        assertNotNull(holder);
    }

    @Test
    void releasedChargesLeaveNoTrackerBehindWhateverTheThreadsAndTheOrder() throws Exception {
        MemoryBudget budget = new MemoryBudget(1 << 20);
        Object holder = new Object();
        List<MemoryBudget.Charge> keptOpen = new ArrayList<>();
        for (int i = 0; i < 5; i++) keptOpen.add(budget.admit(1).heldBy(holder));
        Queue<MemoryBudget.Charge> handedOver = new ConcurrentLinkedQueue<>(); // released by another thread
        ExecutorService threads = Executors.newFixedThreadPool(8);
        try {
            List<Future<?>> done = new ArrayList<>();
            for (int t = 0; t < 8; t++) {
                int seed = t;
                done.add(threads.submit(() -> {
                    Random random = new Random(seed);
                    Deque<MemoryBudget.Charge> open = new ArrayDeque<>();
                    for (int i = 0; i < 20_000; i++) {
                        open.add(budget.admit(1).heldBy(holder));
                        // released out of order, some twice, some before they are held
                        while (open.size() > random.nextInt(6)) {
                            MemoryBudget.Charge c = random.nextBoolean() ? open.pollFirst() : open.pollLast();
                            if (random.nextInt(3) == 0) {
                                handedOver.add(c);
                                continue;
                            }
                            c.release();
                            if (random.nextInt(10) == 0) c.release();
                        }
                        MemoryBudget.Charge fromAnother = handedOver.poll();
                        if (fromAnother != null) fromAnother.release();
                        if (random.nextInt(50) == 0) {
                            MemoryBudget.Charge early = budget.admit(1);
                            early.release();
                            early.heldBy(holder);
                        }
                    }
                    open.forEach(MemoryBudget.Charge::release);
                    return null;
                }));
            }
            for (Future<?> f : done) f.get(60, TimeUnit.SECONDS);
        } finally {
            threads.shutdownNow();
        }
        handedOver.forEach(MemoryBudget.Charge::release);
        assertEquals(5, budget.trackersLinked(), "only the five charges never released are still tracked");
        assertEquals(5, budget.used());
        keptOpen.get(2).release();
        keptOpen.get(0).release();
        keptOpen.get(4).release();
        assertEquals(2, budget.trackersLinked());
        keptOpen.forEach(MemoryBudget.Charge::release);
        assertEquals(0, budget.trackersLinked());
        assertEquals(0, budget.used());
        assertNotNull(holder); // alive to the end: a collected holder would have released the kept charges itself
    }

    @Test
    void aChargeReleasedByAnotherThreadWhileItIsBeingHeldLeavesNoTrackerBehind() throws Exception {
        MemoryBudget budget = new MemoryBudget(1 << 20);
        Object holder = new Object();
        BlockingQueue<MemoryBudget.Charge> handedOver = new LinkedBlockingQueue<>();
        int charges = 200_000;
        ExecutorService threads = Executors.newFixedThreadPool(2);
        try {
            Future<?> holding = threads.submit(() -> {
                for (int i = 0; i < charges; i++) {
                    MemoryBudget.Charge c = budget.admit(1);
                    handedOver.add(c); // the other thread may release it before, during or after heldBy
                    c.heldBy(holder);
                }
                return null;
            });
            Future<?> releasing = threads.submit(() -> {
                for (int i = 0; i < charges; i++) handedOver.take().release();
                return null;
            });
            holding.get(60, TimeUnit.SECONDS);
            releasing.get(60, TimeUnit.SECONDS);
        } finally {
            threads.shutdownNow();
        }
        assertEquals(0, budget.trackersLinked());
        assertEquals(0, budget.used());
        assertNotNull(holder);
    }

    @Test
    void aResponseTheBudgetCannotHoldStreamsAsNotKeptWithEveryByteInOrder() throws Exception {
        MemoryBudget budget = new MemoryBudget(4096);
        assertNotNull(budget.admit(1024));
        ByteArrayOutputStream client = new ByteArrayOutputStream();
        List<String> reasons = new ArrayList<>();
        BoundedResponseBody body = new BoundedResponseBody(1 << 20, reason -> {
            reasons.add(reason);
            return client;
        }, budget);
        byte[] written = new byte[10_000];
        for (int i = 0; i < written.length; i++) written[i] = (byte) i;
        OutputStream out = body.asOutputStream();
        out.write(written, 0, 2000);
        assertFalse(body.isStreaming(), "2000 bytes fit beside the admitted body");
        out.write(written, 2000, 8000);
        assertTrue(body.isStreaming());
        assertEquals(List.of(BoundedResponseBody.OVER_BUDGET), reasons);
        assertArrayEquals(written, client.toByteArray());
        assertEquals(1024, budget.used(), "a streaming response holds nothing");
    }

    @Test
    void aRecordedResponseGivesItsBufferBack() throws Exception {
        MemoryBudget budget = new MemoryBudget(1 << 20);
        BoundedResponseBody body = new BoundedResponseBody(1 << 20, reason -> { throw new AssertionError(reason); }, budget);
        body.asOutputStream().write(new byte[5000]);
        assertTrue(budget.used() >= 5000);
        assertEquals(5000, body.bytes().length);
        body.releaseMemory();
        assertEquals(0, budget.used());
    }
}
