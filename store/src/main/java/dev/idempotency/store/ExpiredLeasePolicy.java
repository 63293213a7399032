package dev.idempotency.store;

/** What happens to an in-flight key whose owner stopped renewing its lease (crash, kill, partition). */
public enum ExpiredLeasePolicy {
    /** The key becomes {@link KeyStatus#UNKNOWN}: never re-executed automatically. */
    RECONCILE,
    /** The next request with the same key and fingerprint takes the key over and runs again. */
    RETRY,
    /**
     * The owner's {@link EffectMark}s decide: none, and nothing it did took effect, so the key is taken over (runs
     * again) as under {@link #RETRY}; any, and the key becomes {@link KeyStatus#UNKNOWN} as under {@link #RECONCILE}.
     */
    TRANSACTION
}
