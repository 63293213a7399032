package dev.idempotency.store;

/** The database could not be reached, or did not answer, in bounded time. Callers fail closed on it (HTTP 503). */
public class StoreUnavailableException extends StoreException {
    public StoreUnavailableException(String message, Throwable cause) {
        super(message, cause);
    }
}
