package dev.idempotency.store;

import java.util.Objects;

/** The answer to {@link IdempotencyStore#reserve}: what the request may do next. */
public final class Reservation {

    public enum Outcome {
        /** New key: the request owns it and runs. */
        ACQUIRED,
        /** The key was retryable (released, or its owner's lease expired under {@link ExpiredLeasePolicy#RETRY}): the request owns it and runs. */
        REACQUIRED,
        /** Completed earlier with the same fingerprint: answer with the stored response. */
        REPLAY,
        /** Another request owns the key and its lease is live. */
        IN_FLIGHT,
        /** The key was used with a different fingerprint. */
        MISMATCH,
        /** An earlier attempt's lease expired without a result under {@link ExpiredLeasePolicy#RECONCILE}. */
        OUTCOME_UNKNOWN
    }

    private final Outcome outcome;
    private final OwnershipToken token;
    private final StoredResponse response;
    private final long leaseRemainingMillis;

    private Reservation(Outcome outcome, OwnershipToken token, StoredResponse response, long leaseRemainingMillis) {
        this.outcome = outcome;
        this.token = token;
        this.response = response;
        this.leaseRemainingMillis = leaseRemainingMillis;
    }

    public static Reservation acquired(OwnershipToken token) { return new Reservation(Outcome.ACQUIRED, Objects.requireNonNull(token), null, 0); }
    public static Reservation reacquired(OwnershipToken token) { return new Reservation(Outcome.REACQUIRED, Objects.requireNonNull(token), null, 0); }
    public static Reservation replay(StoredResponse response) { return new Reservation(Outcome.REPLAY, null, Objects.requireNonNull(response), 0); }
    public static Reservation inFlight(long leaseRemainingMillis) { return new Reservation(Outcome.IN_FLIGHT, null, null, Math.max(0, leaseRemainingMillis)); }
    public static Reservation mismatch() { return new Reservation(Outcome.MISMATCH, null, null, 0); }
    public static Reservation outcomeUnknown() { return new Reservation(Outcome.OUTCOME_UNKNOWN, null, null, 0); }

    public Outcome outcome() { return outcome; }

    /** True for {@link Outcome#ACQUIRED} and {@link Outcome#REACQUIRED}: the caller owns the key and must complete or release it. */
    public boolean owned() { return token != null; }

    /** The ownership token; only when {@link #owned()}. */
    public OwnershipToken token() {
        if (token == null) throw new IllegalStateException("no ownership in a " + outcome + " reservation");
        return token;
    }

    /** The stored response; only for {@link Outcome#REPLAY}. */
    public StoredResponse response() {
        if (response == null) throw new IllegalStateException("no response in a " + outcome + " reservation");
        return response;
    }

    /** Time left on the owner's lease, by the database's clock; only meaningful for {@link Outcome#IN_FLIGHT}. */
    public long leaseRemainingMillis() { return leaseRemainingMillis; }

    @Override
    public String toString() { return "Reservation[" + outcome + "]"; }
}
