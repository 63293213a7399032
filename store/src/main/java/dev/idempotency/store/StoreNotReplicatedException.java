package dev.idempotency.store;

/**
 * The database committed a write on the primary, but its synchronous standby never confirmed it (the wait was
 * cancelled at the timeout, or ended by an administrator): a failover may lose it. The write is neither done nor
 * undone; sending it again would only find it written on this primary. A completion that ends so is not sent.
 */
public class StoreNotReplicatedException extends StoreUnavailableException {
    public StoreNotReplicatedException(String message, Throwable cause, OwnershipToken possiblyReserved) {
        super(message, cause, possiblyReserved);
    }
}
