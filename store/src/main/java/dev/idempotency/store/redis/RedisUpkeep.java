package dev.idempotency.store.redis;

import dev.idempotency.store.StoreBusyException;
import dev.idempotency.store.StoreException;
import dev.idempotency.store.StoreSettings;
import dev.idempotency.store.StoreUnavailableException;
import dev.idempotency.store.upkeep.SweepHorizon;

import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.function.IntConsumer;
import java.util.function.IntSupplier;

/**
 * The sweep of expired leases and the purge of expired keys, bucket by bucket, each bucket's part one script. A batch
 * gathers up to {@code batch-size} changes across buckets, so batches mean what they mean for every store family; a
 * bucket is visited again until its script says nothing more is due. Each step runs on its bucket's master.
 */
final class RedisUpkeep {
    private final StoreSettings settings;
    private final KeyLayout layout;
    private final RedisConnections connections;
    private final SweepHorizon lookBack = new SweepHorizon(System::nanoTime);
    private final byte[] policy;
    private final byte[] retention;
    /**
     * One sweep or purge at a time (the housekeeper's, an operator's through JMX): each keeps a background connection
     * busy for its whole run, and the heartbeat's renewals need the other one.
     */
    private final Semaphore housekeeping = new Semaphore(1);

    RedisUpkeep(StoreSettings settings, KeyLayout layout, RedisConnections connections) {
        this.settings = settings;
        this.layout = layout;
        this.connections = connections;
        this.policy = KeyLayout.bytes(settings.expiredLeasePolicy().name());
        this.retention = RedisIdempotencyStore.number(settings.unknownRetention().toMillis());
    }

    /** One bucket's script, asked for at most {@code limit} changes: {changed, whether more may be due}. */
    private interface BucketStep {
        List<?> run(int bucket, int limit);
    }

    int sweepExpiredLeases() {
        return oneAtATime("sweep expired leases", () -> {
            long[] start = lookBack.start();
            byte[] back = RedisIdempotencyStore.number(start[0]);
            int swept = inBatches(deleted -> { }, (bucket, limit) -> connections.background("sweep expired leases",
                    layout.lease(bucket), redis -> (List<?>) Script.SWEEP.run(redis, layout.indexesOf(bucket),
                            layout.base(bucket), back, RedisIdempotencyStore.number(limit), policy, retention)));
            lookBack.completed(start[1]);
            return swept;
        });
    }

    int purgeExpired(IntConsumer afterEachBatch) {
        Objects.requireNonNull(afterEachBatch, "afterEachBatch");
        return oneAtATime("purge expired keys", () -> inBatches(afterEachBatch, (bucket, limit) ->
                connections.background("purge expired keys", layout.lease(bucket), redis -> (List<?>) Script.PURGE.run(
                        redis, layout.indexesOf(bucket), layout.base(bucket), RedisIdempotencyStore.number(limit),
                        policy, retention))));
    }

    /** Waits for other housekeeping no longer than for a connection, as the JDBC store does. */
    private int oneAtATime(String operation, IntSupplier work) {
        long waitMillis = settings.connectTimeout().toMillis();
        try {
            if (!housekeeping.tryAcquire(waitMillis, TimeUnit.MILLISECONDS)) {
                throw new StoreBusyException("idempotency store busy during " + operation
                        + ": other housekeeping still runs after " + waitMillis + " ms");
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new StoreUnavailableException("interrupted before " + operation, e);
        }
        try {
            return work.getAsInt();
        } finally {
            housekeeping.release();
        }
    }

    /**
     * Every bucket until none has more due. A bucket that fails (its master away, its slot migrating) is left for the
     * next run, and the others are done all the same; the first failure is thrown at the end.
     */
    private int inBatches(IntConsumer afterEachBatch, BucketStep step) {
        List<Integer> active = new ArrayList<>();
        for (int b = 0; b < KeyLayout.BUCKETS; b++) active.add(b);
        int total = 0;
        StoreException failed = null;
        while (!active.isEmpty()) {
            int batch = 0;
            for (int i = 0; i < active.size() && batch < settings.batchSize(); ) {
                List<?> answer;
                try {
                    answer = step.run(active.get(i), settings.batchSize() - batch);
                } catch (StoreException e) {
                    if (failed == null) failed = e;
                    else failed.addSuppressed(e);
                    active.remove(i);
                    continue;
                }
                batch += ((Long) answer.get(0)).intValue();
                if (RedisIdempotencyStore.one(answer.get(1))) i++;
                else active.remove(i);
            }
            if (batch > 0) afterEachBatch.accept(batch);
            total += batch;
        }
        if (failed != null) throw failed;
        return total;
    }
}
