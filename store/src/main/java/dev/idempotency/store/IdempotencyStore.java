package dev.idempotency.store;

import java.time.Instant;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.IntConsumer;

/**
 * The life of an idempotency key. Every operation is a short autocommit statement: no database transaction or row lock
 * is held while the application runs; the lease is the lock. Every time comparison uses the database's clock.
 *
 * <p>Every method throws {@link StoreUnavailableException} when the database cannot be reached in bounded time, and
 * {@link StoreDataException} when a stored key cannot be decoded by this version.
 */
public interface IdempotencyStore extends AutoCloseable {

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

    /** Extends the leases of the keys these tokens still own, in one statement. Returns how many were extended. */
    int renew(Collection<OwnershipToken> tokens);

    /** Applies the expired-lease policy to every in-flight key whose lease ran out, in batches; returns how many changed. */
    int sweepExpiredLeases();

    /**
     * Deletes terminal keys (completed, retryable) past their expiry, and keys whose outcome has been unknown for longer
     * than the unknown-retention setting (and whose expiry passed too), in batches; returns how many were deleted.
     */
    default int purgeExpired() {
        return purgeExpired(deleted -> { });
    }

    /** {@link #purgeExpired()}, telling {@code afterEachBatch} how many keys each batch deleted (for progress lines). */
    int purgeExpired(IntConsumer afterEachBatch);

    /**
     * 32 random bytes created on first use and kept in the store: the same for every node sharing the store, stable
     * across restarts. Callers derive keys from it (for example to MAC what they hand to clients); never log it.
     * Returns a fresh copy.
     */
    byte[] installationSecret();

    // Operator queries.

    Optional<KeyRecord> find(String scope, String key);

    /** Keys in the given status, oldest first. */
    default List<KeyRecord> list(KeyStatus status, int limit) {
        return list(KeyQuery.all(limit).withStatus(status));
    }

    /** The keys a query selects, oldest first. */
    List<KeyRecord> list(KeyQuery query);

    /** How many keys are in each status (statuses with none are absent). Counts the whole table: for operators. */
    Map<KeyStatus, Long> countByStatus();

    /** The database's clock, which every lease and expiry is measured by. */
    Instant databaseTime();

    /**
     * Resolves a key whose outcome is unknown ({@link KeyStatus#UNKNOWN}, or in flight under a lease that ran out and
     * was not yet swept) for retry: the next request with it runs the application. False for any other key.
     */
    boolean resolveForRetry(String scope, String key);

    /** Resolves a key whose outcome is unknown (as {@link #resolveForRetry}) as completed: the next request gets this response. */
    boolean resolveAsCompleted(String scope, String key, StoredResponse response);

    /** Forgets a key, unless a request holds it in flight under a live lease. Returns whether it deleted it. */
    boolean delete(String scope, String key);

    @Override
    void close();
}
