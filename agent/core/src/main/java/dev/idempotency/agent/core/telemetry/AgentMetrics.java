package dev.idempotency.agent.core.telemetry;

import java.util.EnumMap;
import java.util.Map;
import java.util.concurrent.atomic.LongAdder;
import java.util.function.IntSupplier;

/**
 * The agent's figures, counted where things happen (one keyed request, one outcome) and read by JMX and the metrics
 * endpoint. Counting costs one uncontended add; requests without a key are never counted.
 */
public final class AgentMetrics {
    /** How a request that ran ended its reservation. */
    public enum Completion {
        /** The response is stored for replay. */
        RECORDED,
        /** Given up without a result (5xx, a retry status, an exception): the next request runs. */
        RELEASED,
        /** Another request took the key over while this one ran. */
        TAKEN_OVER,
        /** The store could not take the response. */
        NOT_RECORDED,
        /** Too large to keep: retries get 409 not-kept. */
        NOT_KEPT
    }

    private final Map<Outcome, LongAdder> outcomes = new EnumMap<>(Outcome.class);
    private final Map<Completion, LongAdder> completions = new EnumMap<>(Completion.class);
    private final LatencyRecorder reserve = new LatencyRecorder();
    private final LatencyRecorder complete = new LatencyRecorder();
    private final LongAdder heartbeatFailures = new LongAdder();
    private final LongAdder leasesExpired = new LongAdder();
    private volatile boolean storeUp = true;
    private volatile IntSupplier keysInFlight = () -> 0;
    private volatile IntSupplier storeConnectionsInUse = () -> 0;
    private volatile IntSupplier waitingForHolder = () -> 0;
    private volatile java.util.function.LongSupplier memoryHeld = () -> 0;
    private volatile long memoryBudget;
    private volatile EndpointInventory endpoints = new EndpointInventory(
            dev.idempotency.agent.core.protocol.RequiredEndpoints.parse(""), 0, 0);

    public AgentMetrics() {
        for (Outcome o : Outcome.values()) outcomes.put(o, new LongAdder());
        for (Completion c : Completion.values()) completions.put(c, new LongAdder());
    }

    public void count(Outcome outcome) { outcomes.get(outcome).increment(); }

    public void completed(Completion completion) { completions.get(completion).increment(); }

    public void reserveTook(long nanos) { reserve.record(nanos); }

    public void completeTook(long nanos) { complete.record(nanos); }

    public void heartbeatFailed() { heartbeatFailures.increment(); }

    /** This JVM's sweep found keys whose lease ran out without a result (then decided by on-expired-lease). */
    public void leasesExpired(int keys) {
        if (keys > 0) leasesExpired.add(keys);
    }

    /** The last store interaction succeeded (true) or could not reach the store (false). */
    public void storeReachable(boolean up) {
        if (storeUp != up) storeUp = up;
    }

    /** Where the number of keys this JVM's requests hold comes from (the heartbeat, once the store is open). */
    public void keysInFlightFrom(IntSupplier source) { keysInFlight = source; }

    /** Where the number of the store's connections lent out now comes from (once the store is open). */
    public void storeConnectionsInUseFrom(IntSupplier source) { storeConnectionsInUse = source; }

    /** Where the number of duplicates waiting for their key's holder comes from. */
    public void waitingForHolderFrom(IntSupplier source) { waitingForHolder = source; }

    /** Where the bytes the agent holds for keyed requests are counted, and their limit. */
    public void memoryFrom(java.util.function.LongSupplier held, long budget) {
        memoryHeld = held;
        memoryBudget = budget;
    }

    /** The endpoint inventory the figures publish (an empty one until the agent sets its own). */
    public void endpointsFrom(EndpointInventory inventory) { endpoints = inventory; }

    public EndpointInventory endpoints() { return endpoints; }

    public long memoryHeld() { return memoryHeld.getAsLong(); }

    public long memoryBudget() { return memoryBudget; }

    public long outcome(Outcome outcome) { return outcomes.get(outcome).sum(); }

    public long completions(Completion completion) { return completions.get(completion).sum(); }

    public LatencyRecorder reserveLatency() { return reserve; }

    public LatencyRecorder completeLatency() { return complete; }

    public long heartbeatFailures() { return heartbeatFailures.sum(); }

    public long leasesExpired() { return leasesExpired.sum(); }

    public boolean storeUp() { return storeUp; }

    public int keysInFlight() { return keysInFlight.getAsInt(); }

    public int storeConnectionsInUse() { return storeConnectionsInUse.getAsInt(); }

    public int waitingForHolder() { return waitingForHolder.getAsInt(); }
}
