package dev.idempotency.agent.core.effects;

import java.lang.reflect.Method;

/**
 * The PostgreSQL driver's own view of a connection's transaction (IDLE, OPEN, FAILED), read through its public
 * {@code BaseConnection.getTransactionState()} by reflection: the agent does not ship the driver.
 */
final class PostgresTransactions {
    private PostgresTransactions() {
    }

    /** The state's name, or null when the driver does not say. */
    static String state(Object connection) {
        try {
            Method getter = connection.getClass().getMethod("getTransactionState");
            Object state = getter.invoke(connection);
            return state == null ? null : state.toString();
        } catch (ReflectiveOperationException | RuntimeException e) {
            return null;
        }
    }
}
