package dev.idempotency.agent.core.inprocess;

import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;

/**
 * What the test applications did, per request reference (each test sends its own {@code ?ref=}): how often they ran
 * and the answer they wrote last. "Ran once" is read from the application, never from the agent.
 */
final class AppLedger {
    /** An answer as the application wrote it: status, the headers it set, body bytes. */
    record Written(int status, Map<String, String> headers, byte[] body) { }

    private static final Map<String, AtomicInteger> RUNS = new ConcurrentHashMap<>();
    private static final Map<String, Written> WRITTEN = new ConcurrentHashMap<>();
    /** Numbers every run anew, so a second run never writes the bytes of the first. */
    private static final AtomicLong SEQUENCE = new AtomicLong();

    private AppLedger() {
    }

    /** Counts a run of the application for {@code ref}; returns a number no other run gets. */
    static long ran(String ref) {
        RUNS.computeIfAbsent(ref, r -> new AtomicInteger()).incrementAndGet();
        return SEQUENCE.incrementAndGet();
    }

    static Written wrote(String ref, Written answer) {
        WRITTEN.put(ref, answer);
        return answer;
    }

    static int runs(String ref) {
        AtomicInteger runs = RUNS.get(ref);
        return runs == null ? 0 : runs.get();
    }

    static Written written(String ref) {
        Written answer = WRITTEN.get(ref);
        if (answer == null) throw new AssertionError("the application wrote no answer for " + ref);
        return answer;
    }
}
