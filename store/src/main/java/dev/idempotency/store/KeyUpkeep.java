package dev.idempotency.store;

import java.util.Collection;
import java.util.Collections;
import java.util.List;
import java.util.function.IntConsumer;

/**
 * What keeps keys alive and the store small, off the request path: the heartbeat that renews the leases of running
 * requests, the sweep of expired leases, the purge of expired keys, and the checks of a store being opened.
 *
 * <p>Every method throws {@link StoreUnavailableException} when the store cannot be reached in bounded time, and
 * {@link StoreDataException} when a stored key cannot be decoded by this version.
 */
public interface KeyUpkeep {
    /** Connects and checks the store is ready as configured (its schema, for a database); throws what it finds wrong. */
    void checkSchema();

    /**
     * What the last {@link #checkSchema} found that does not stop the store but that its operator should know (a Redis
     * that forgets its keys on a restart, say), one sentence each; empty when nothing.
     */
    default List<String> cautions() {
        return Collections.emptyList();
    }

    /** The store's kind as the start-up line names it (for example {@code PostgreSQL}). */
    String dialectName();

    /** Connections (or sessions) of the request path in use now: a gauge. */
    int connectionsInUse();

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
}
