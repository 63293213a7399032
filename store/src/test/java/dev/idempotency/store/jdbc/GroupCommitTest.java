package dev.idempotency.store.jdbc;

import dev.idempotency.store.StoreException;
import dev.idempotency.store.StoreUnavailableException;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.locks.LockSupport;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The combiner on its own, with batches that misbehave on purpose. */
class GroupCommitTest {
    private static final long LONG_WAIT = Duration.ofSeconds(30).toNanos();

    @Test
    void anErrorInABatchFailsThatBatchAloneAndNobodyIsLeftParked() throws Exception {
        // One lane, one item a batch: a leader often runs someone else's item while its own waits in the queue.
        GroupCommit<Integer, Integer> commit = new GroupCommit<>("test", 1, 1, LONG_WAIT, items -> {
            for (GroupCommit.Pending<Integer, Integer> p : items) {
                if (p.item % 7 == 0) throw new OutOfMemoryError("simulated");
                p.succeed(p.item * 2);
            }
        });
        ExecutorService pool = Executors.newFixedThreadPool(8);
        try {
            List<CompletableFuture<Integer>> results = new ArrayList<>();
            for (int i = 1; i <= 400; i++) {
                int item = i;
                results.add(CompletableFuture.supplyAsync(() -> commit.submit(item), pool));
            }
            for (int i = 1; i <= 400; i++) {
                CompletableFuture<Integer> r = results.get(i - 1);
                if (i % 7 == 0) {
                    ExecutionException e = assertThrows(ExecutionException.class, () -> r.get(30, TimeUnit.SECONDS));
                    assertInstanceOf(StoreException.class, e.getCause(), "item " + i);
                } else {
                    assertEquals(i * 2, r.get(30, TimeUnit.SECONDS), "item " + i + " gets its own outcome");
                }
            }
            assertEquals(400, commit.figures().items(), "every item ran exactly once");
        } finally {
            pool.shutdownNow();
        }
    }

    @Test
    void aCallerStillQueuedAtItsDeadlineGivesUpWithNothingSent() throws Exception {
        CountDownLatch release = new CountDownLatch(1);
        List<Integer> ran = new ArrayList<>();
        GroupCommit<Integer, Integer> commit = new GroupCommit<>("test", 1, 1, Duration.ofMillis(300).toNanos(), items -> {
            try {
                release.await(30, TimeUnit.SECONDS); // a batch that hangs, as on a database that does not answer
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            for (GroupCommit.Pending<Integer, Integer> p : items) {
                synchronized (ran) {
                    ran.add(p.item);
                }
                p.succeed(p.item);
            }
        });
        CompletableFuture<Integer> first = CompletableFuture.supplyAsync(() -> commit.submit(1));
        awaitBatches(commit, 1);
        StoreUnavailableException waited = assertThrows(StoreUnavailableException.class, () -> commit.submit(2));
        assertTrue(waited.getMessage().contains("waited"), waited.getMessage());
        release.countDown();
        assertEquals(1, first.get(30, TimeUnit.SECONDS), "the caller whose batch ran waits for it, past the deadline");
        synchronized (ran) {
            assertEquals(List.of(1), ran, "the caller that gave up was never sent");
        }
    }

    @Test
    void aCallerWhoseItemAnotherLeaderTookWaitsWithoutLeading() throws Exception {
        // The caller of item 2 is held right after queueing it (as a busy processor may hold any thread) until another
        // leader has taken it; a lane is free when it goes on. It used to lead then, find its item gone, give the lane
        // back and try again, in a busy loop for as long as the other batch ran.
        CountDownLatch itemTwoTaken = new CountDownLatch(1);
        AtomicInteger emptyPolls = new AtomicInteger();
        ConcurrentLinkedQueue<GroupCommit.Pending<Integer, Integer>> queue = new ConcurrentLinkedQueue<GroupCommit.Pending<Integer, Integer>>() {
            @Override
            public boolean add(GroupCommit.Pending<Integer, Integer> p) {
                boolean added = super.add(p);
                if (p.item == 2) {
                    awaitQuietly(itemTwoTaken);
                    awaitQuietlyUntil(p::taken); // marked by its leader just after the poll
                }
                return added;
            }

            @Override
            public GroupCommit.Pending<Integer, Integer> poll() {
                GroupCommit.Pending<Integer, Integer> p = super.poll();
                if (p == null) emptyPolls.incrementAndGet();
                else if (p.item == 2) itemTwoTaken.countDown();
                return p;
            }
        };
        CountDownLatch batchMayEnd = new CountDownLatch(1);
        GroupCommit<Integer, Integer> commit = new GroupCommit<>("test", 2, 64, LONG_WAIT, items -> {
            awaitQuietly(batchMayEnd); // the database still working on the batch
            for (GroupCommit.Pending<Integer, Integer> p : items) p.succeed(p.item);
        }, queue);
        AtomicReference<Thread> secondCaller = new AtomicReference<>();
        CompletableFuture<Integer> second = CompletableFuture.supplyAsync(() -> {
            secondCaller.set(Thread.currentThread());
            return commit.submit(2);
        });
        CompletableFuture<Integer> third = CompletableFuture.supplyAsync(() -> {
            awaitQuietlyUntil(() -> queue.size() == 1); // item 2 is queued, its caller held
            return commit.submit(3); // leads the batch of 2 and 3
        });
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
        while (!parkedInSubmit(secondCaller.get()) && emptyPolls.get() < 100_000 && System.nanoTime() < deadline) Thread.yield();
        int polledForNothing = emptyPolls.get();
        batchMayEnd.countDown();
        assertEquals(2, second.get(30, TimeUnit.SECONDS));
        assertEquals(3, third.get(30, TimeUnit.SECONDS));
        assertEquals(1, commit.figures().batches(), "items 2 and 3 went in one batch");
        assertTrue(polledForNothing <= 2, "the caller of item 2 looked for work " + polledForNothing + " times while its batch ran");
    }

    /** Parked by the combiner itself (waiting for its batch or a lane), not held in the test's queue. */
    private static boolean parkedInSubmit(Thread t) {
        if (t == null) return false;
        StackTraceElement[] stack = t.getStackTrace();
        for (int i = 0; i + 1 < stack.length; i++) {
            if (stack[i].getClassName().equals(LockSupport.class.getName())
                    && stack[i + 1].getClassName().equals(GroupCommit.class.getName())
                    && stack[i + 1].getMethodName().equals("submit")) {
                return true;
            }
        }
        return false;
    }

    private static void awaitQuietly(CountDownLatch latch) {
        try {
            if (!latch.await(30, TimeUnit.SECONDS)) throw new AssertionError("latch not released");
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    private static void awaitQuietlyUntil(java.util.function.BooleanSupplier condition) {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
        while (!condition.getAsBoolean()) {
            if (System.nanoTime() > deadline) throw new AssertionError("condition not met");
            Thread.yield();
        }
    }

    private static void awaitBatches(GroupCommit<?, ?> commit, long n) throws InterruptedException {
        long deadline = System.nanoTime() + Duration.ofSeconds(20).toNanos();
        while (commit.figures().batches() < n) {
            if (System.nanoTime() > deadline) throw new AssertionError("no batch started");
            Thread.sleep(1);
        }
    }
}
