package dev.idempotency.store;

/** The database could not be reached, or did not answer, in bounded time. Callers fail closed on it (HTTP 503). */
public class StoreUnavailableException extends StoreException {
    private final OwnershipToken possiblyReserved;

    public StoreUnavailableException(String message, Throwable cause) {
        this(message, cause, null);
    }

    public StoreUnavailableException(String message, Throwable cause, OwnershipToken possiblyReserved) {
        super(message, cause);
        this.possiblyReserved = possiblyReserved;
    }

    /**
     * For a failed {@link IdempotencyStore#reserve}: the ownership token of a write that was sent and whose answer was
     * lost (timeout, dropped connection), so the database may have reserved the key for it; null when no write was
     * sent. The caller did not run the request, so it should {@link IdempotencyStore#release release} this token once
     * the store is back; releasing a token that never got in does nothing and returns false.
     */
    public OwnershipToken possiblyReserved() { return possiblyReserved; }
}
