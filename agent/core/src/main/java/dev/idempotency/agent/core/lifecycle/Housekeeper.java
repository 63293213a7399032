package dev.idempotency.agent.core.lifecycle;

import dev.idempotency.agent.core.threads.AgentThreads;
import dev.idempotency.agent.core.log.AgentLog;
import dev.idempotency.store.KeyUpkeep;
import dev.idempotency.store.StoreBusyException;
import dev.idempotency.store.StoreUnavailableException;

import java.time.Duration;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import java.util.function.IntConsumer;

/**
 * Periodically applies the expired-lease policy and purges expired keys, on an agent thread; and says whether that
 * reached the store, so that a store that goes away or comes back while no keyed request arrives shows in
 * {@code idempotency_store_up} within a sweep interval.
 */
final class Housekeeper {
    private Housekeeper() {
    }

    /**
     * @param expired told how many keys each sweep found with their lease run out (the metrics count them)
     * @param reachable told after each sweep whether it reached the store
     */
    static void start(KeyUpkeep store, Duration interval, IntConsumer expired, Consumer<Boolean> reachable) {
        AgentThreads.single("housekeeper").scheduleWithFixedDelay(() -> sweep(store, expired, reachable),
                interval.toMillis(), interval.toMillis(), TimeUnit.MILLISECONDS);
    }

    /** One round: never throws, since a scheduled task that throws is never run again. */
    static void sweep(KeyUpkeep store, IntConsumer expired, Consumer<Boolean> reachable) {
        try {
            int swept = store.sweepExpiredLeases();
            expired.accept(swept);
            int purged = store.purgeExpired();
            reachable.accept(true);
            if (swept > 0) AgentLog.warn(swept + " key(s) lost their lease without a result (crashed or partitioned requests)");
            if (purged > 0) AgentLog.debug("purged " + purged + " expired key(s)");
        } catch (StoreBusyException e) {
            AgentLog.debug("housekeeping skipped: " + e.getMessage());
        } catch (StoreUnavailableException e) {
            reachable.accept(false);
            AgentLog.debug("housekeeping skipped, the store is unavailable: " + e.getMessage());
        } catch (RuntimeException e) {
            AgentLog.debug("housekeeping skipped: " + e.getMessage());
        }
    }
}
