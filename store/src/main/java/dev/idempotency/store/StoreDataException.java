package dev.idempotency.store;

/**
 * A stored key cannot be decoded by this version: a status it does not know (written by a newer release during a
 * rolling upgrade), corrupt headers, a response status out of range. The message names the table, scope and key.
 * Callers fail closed on the key, as for any {@link StoreException}; an operator inspects or deletes the row.
 */
public class StoreDataException extends StoreException {
    public StoreDataException(String message, Throwable cause) {
        super(message, cause);
    }
}
