package dev.idempotency.store;

/**
 * A whole store: the request path's operations ({@link KeyReservations}), the background's ({@link KeyUpkeep}) and the
 * operator's ({@link KeyAdministration}). Code depends on the narrowest of the three it needs; a store family implements
 * this.
 */
public interface IdempotencyStore extends KeyReservations, KeyUpkeep, KeyAdministration, AutoCloseable {

    @Override
    void close();
}
