package dev.idempotency.store;

/** Where a key is in its life. The names are stored in the database as they are. */
public enum KeyStatus {
    /** A request owns the key under a lease and is running. */
    IN_FLIGHT,
    /** The response is stored and will be replayed. */
    COMPLETED,
    /** An attempt gave the key up without a result worth keeping; the next request may run. */
    RETRYABLE,
    /** An owner's lease expired with no result: whether the work happened is unknown; an operator decides. */
    UNKNOWN
}
