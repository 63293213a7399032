package dev.idempotency.store;

/**
 * A sweep or purge did not start because another still runs (the housekeeper's and an operator's, say): the store was
 * not found unreachable, so nothing should report it down.
 */
public final class StoreBusyException extends StoreUnavailableException {
    public StoreBusyException(String message) {
        super(message, null);
    }
}
