package dev.idempotency.store;

/** A store operation failed. Callers cannot know whether the key is safe to run, so they fail closed on it. */
public class StoreException extends RuntimeException {
    public StoreException(String message, Throwable cause) {
        super(message, cause);
    }
}
