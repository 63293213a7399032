package dev.idempotency.store;

/** What happens to an in-flight key whose owner stopped renewing its lease (crash, kill, partition). */
public enum ExpiredLeasePolicy {
    /** The key becomes {@link KeyStatus#UNKNOWN}: never re-executed automatically. */
    RECONCILE,
    /** The next request with the same key and fingerprint takes the key over and runs again. */
    RETRY
}
