package dev.idempotency.store;

/** The settings or the database schema are not usable; the message says what is wrong and how to fix it. */
public class StoreConfigurationException extends RuntimeException {
    public StoreConfigurationException(String message) {
        super(message);
    }

    public StoreConfigurationException(String message, Throwable cause) {
        super(message, cause);
    }
}
