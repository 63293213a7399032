package dev.idempotency.store.jdbc;

import dev.idempotency.store.KeyStatus;
import dev.idempotency.store.OwnershipToken;
import dev.idempotency.store.StoredResponse;

/** What a reservation needs to know about an existing key: a row of {@link Sql#selectState}'s columns. */
final class KeyState {
    String fingerprint;
    KeyStatus status;
    String ownerToken;
    long leaseLeftMillis;
    boolean expired;
    StoredResponse response;

    /** Whether this state is the fresh reservation that {@code token}'s insert made. */
    boolean ownedBy(OwnershipToken token) {
        return token != null && status == KeyStatus.IN_FLIGHT && token.token().equals(ownerToken);
    }
}
