package dev.idempotency.store;

/**
 * What a keyed request asks of the store, on the request path: reserve its key, record or give up the outcome, note an
 * effect. Every operation is one short write: nothing is held while the application runs; the lease is the lock, and
 * every time comparison uses the store's clock, never the node's.
 *
 * <p>Every method throws {@link StoreUnavailableException} when the store cannot be reached in bounded time, and
 * {@link StoreDataException} when a stored key cannot be decoded by this version.
 */
public interface KeyReservations {

    /**
     * Reserves {@code (scope, key)} for a request with the given fingerprint, or says why it cannot run. Scopes and
     * keys compare byte for byte on every database ({@code "abc "} is not {@code "abc"}). When the answer of a write
     * was lost, the {@link StoreUnavailableException} carries the token that may now own the key
     * ({@link StoreUnavailableException#possiblyReserved()}).
     */
    Reservation reserve(String scope, String key, String fingerprint);

    /** Stores the response if {@code token} still owns its key (fencing). Returns whether it did. */
    boolean complete(OwnershipToken token, StoredResponse response);

    /**
     * Replaces the response {@code token} recorded, while its key is still completed by it: for what the server adds
     * after the application ended (an error page rendered for its sendError). Returns whether it did.
     */
    boolean replaceResponse(OwnershipToken token, StoredResponse response);

    /**
     * Gives the key up without a result worth keeping (5xx, exception): the next request may run. A token that does
     * not own its key (never got in, completed, taken over) changes nothing and returns false.
     */
    boolean release(OwnershipToken token);

    /**
     * Durably notes that the request owning {@code token} is about to cause an effect the store cannot see commit
     * (outbound HTTP, a message, another database), or that its effects cannot be watched. Under
     * {@link ExpiredLeasePolicy#TRANSACTION} the key then never runs again by itself after a crash. Returns false, writing
     * nothing, when the token no longer owns its key.
     */
    boolean recordEffect(OwnershipToken token, EffectMark.Kind kind, String detail);

    /**
     * 32 random bytes created on first use and kept in the store: the same for every node sharing the store, stable
     * across restarts. Callers derive keys from it (for example to MAC what they hand to clients); never log it.
     * Returns a fresh copy.
     */
    byte[] installationSecret();
}
