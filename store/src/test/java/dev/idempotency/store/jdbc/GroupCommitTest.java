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

    private static void awaitBatches(GroupCommit<?, ?> commit, long n) throws InterruptedException {
        long deadline = System.nanoTime() + Duration.ofSeconds(20).toNanos();
        while (commit.figures().batches() < n) {
            if (System.nanoTime() > deadline) throw new AssertionError("no batch started");
            Thread.sleep(1);
        }
    }
}
