package dev.idempotency.agent.bootstrap.bridge;

/**
 * Implemented by the agent core: told, on the application's thread, of what may have an effect while a keyed request
 * runs. Connections and statements are the JDBC driver's own objects, typed {@code Object}: the bootstrap class path
 * cannot see {@code java.sql}. A method may throw (an {@code SQLException}) to stop an effect the agent could not
 * mark: that is how a request that lost its key is kept from committing.
 */
public interface EffectHandler {

    /** Before a driver's {@code Connection.commit()}. */
    void beforeCommit(Object connection) throws Exception;

    /** Before a driver's {@code Connection.setAutoCommit(on)}: turning it on commits an open transaction. */
    void beforeSetAutoCommit(Object connection, boolean on) throws Exception;

    /** Before a driver's {@code Connection.rollback()}: what the transaction wrote is gone. */
    void beforeRollback(Object connection);

    /** A driver's {@code prepareStatement} or {@code prepareCall} returned {@code statement} for {@code sql}. */
    void prepared(Object statement, String sql);

    /** Before a driver's statement executes; {@code sql} is null for a prepared statement or a batch. */
    void beforeExecute(Object statement, String sql) throws Exception;

    /** Before a message ({@code kind}: "jms") that {@code target} is about to send. */
    void beforeOutbound(String kind, Object target) throws Exception;

    /**
     * Before an outbound HTTP call: {@code call} is the client's connection, call or request. Returns what the client
     * goes on with: the same object, or a request rebuilt with a header where the client's requests cannot change.
     */
    Object beforeHttpCall(Object call) throws Exception;

    /** An XA transaction branch starts: the driver's commit will not be seen. */
    void xaStarted(Object resource);
}
