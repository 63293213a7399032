package dev.idempotency.store;

import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * The operator's view of the keys: find, list and count them, the store's clock, and the manual resolutions of a key
 * whose outcome is unknown.
 *
 * <p>Every method throws {@link StoreUnavailableException} when the store cannot be reached in bounded time, and
 * {@link StoreDataException} when a stored key cannot be decoded by this version.
 */
public interface KeyAdministration {

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
}
