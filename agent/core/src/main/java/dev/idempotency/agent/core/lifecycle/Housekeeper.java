package dev.idempotency.agent.core.lifecycle;

import dev.idempotency.agent.core.threads.AgentThreads;
import dev.idempotency.agent.core.log.AgentLog;
import dev.idempotency.store.KeyUpkeep;

import java.time.Duration;
import java.util.concurrent.TimeUnit;
import java.util.function.IntConsumer;

/** Periodically applies the expired-lease policy and purges expired keys, on an agent thread. */
final class Housekeeper {
    private Housekeeper() {
    }

    /** {@code expired}: told how many keys each sweep found with their lease run out (the metrics count them). */
    static void start(KeyUpkeep store, Duration interval, IntConsumer expired) {
        AgentThreads.single("housekeeper").scheduleWithFixedDelay(() -> {
            try {
                int swept = store.sweepExpiredLeases();
                expired.accept(swept);
                int purged = store.purgeExpired();
                if (swept > 0) AgentLog.warn(swept + " key(s) lost their lease without a result (crashed or partitioned requests)");
                if (purged > 0) AgentLog.debug("purged " + purged + " expired key(s)");
            } catch (RuntimeException e) {
                AgentLog.debug("housekeeping skipped: " + e.getMessage());
            }
        }, interval.toMillis(), interval.toMillis(), TimeUnit.MILLISECONDS);
    }
}
