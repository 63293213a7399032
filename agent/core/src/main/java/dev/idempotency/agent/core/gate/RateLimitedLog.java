package dev.idempotency.agent.core.gate;

import java.util.concurrent.atomic.AtomicLong;

/** Runs a log statement at most once per period, so that a fault hit by every request cannot flood the log. */
public final class RateLimitedLog {
    private final long periodMillis;
    private final AtomicLong last = new AtomicLong(Long.MIN_VALUE / 2);

    public RateLimitedLog(long periodMillis) {
        this.periodMillis = periodMillis;
    }

    public void run(Runnable log) {
        long now = System.currentTimeMillis();
        long previous = last.get();
        if (now - previous >= periodMillis && last.compareAndSet(previous, now)) log.run();
    }
}
