package dev.idempotency.store;

import java.util.Collection;
import java.util.List;
import java.util.Optional;

/**
 * The life of an idempotency key. Every operation is a short autocommit statement: no database transaction or row lock
 * is held while the application runs; the lease is the lock. Every time comparison uses the database's clock.
 *
 * <p>Every method throws {@link StoreUnavailableException} when the database cannot be reached in bounded time.
 */
public interface IdempotencyStore extends AutoCloseable {

    /** Reserves {@code (scope, key)} for a request with the given fingerprint, or says why it cannot run. */
    Reservation reserve(String scope, String key, String fingerprint);

    /** Stores the response if {@code token} still owns its key (fencing). Returns whether it did. */
    boolean complete(OwnershipToken token, StoredResponse response);

    /** Gives the key up without a result worth keeping (5xx, exception): the next request may run. */
    boolean release(OwnershipToken token);

    /** Extends the leases of the keys these tokens still own, in one statement. Returns how many were extended. */
    int renew(Collection<OwnershipToken> tokens);

    /** Applies the expired-lease policy to every in-flight key whose lease ran out, in batches; returns how many changed. */
    int sweepExpiredLeases();

    /** Deletes terminal keys (completed, retryable) past their expiry, in batches; returns how many were deleted. */
    int purgeExpired();

    // Operator queries.

    Optional<KeyRecord> find(String scope, String key);

    /** Keys in the given status, oldest change first. */
    List<KeyRecord> list(KeyStatus status, int limit);

    /** Resolves an {@link KeyStatus#UNKNOWN} key for retry: the next request with it runs the application. */
    boolean resolveForRetry(String scope, String key);

    /** Resolves an {@link KeyStatus#UNKNOWN} key as completed: the next request with it gets this response. */
    boolean resolveAsCompleted(String scope, String key, StoredResponse response);

    boolean delete(String scope, String key);

    @Override
    void close();
}
