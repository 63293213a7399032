package dev.idempotency.store.redis;

import redis.clients.jedis.HostAndPort;
import redis.clients.jedis.Jedis;

import java.util.List;
import java.util.Map;

/**
 * Where a store's connections come from: the pool of one server (standalone, or the master Sentinel names now), or a
 * pool per node of a Redis Cluster, chosen by the hash slot of the key a piece of work touches. Every method may
 * throw a client exception; {@link RedisConnections} turns it into the store's own.
 */
interface RedisNodes extends AutoCloseable {
    /** A connection to the master that serves {@code key}'s slot (the one server when there is no Cluster). */
    Jedis borrow(byte[] key);

    /** A connection to the node a Cluster's redirection named. */
    Jedis borrow(HostAndPort node);

    /** The masters now, each once (the one server when there is no Cluster). */
    List<HostAndPort> masters();

    /**
     * Asks the Cluster again which master serves which slot (after a MOVED, or a master that went away), waiting at
     * most {@code waitNanos} for the answer (0: not at all).
     */
    void relearnSlots(long waitNanos);

    /**
     * Drops the idle connections to the node that served {@code key}, or to {@code node} when a redirection named it:
     * the server most likely closed them too after it closed one (in a Cluster, the other nodes' stay).
     */
    void dropIdle(byte[] key, HostAndPort node);

    /** Connections closed so far, per node ("host:port"), idle ones dropped included: for tests. */
    Map<String, Long> connectionsClosed();

    boolean cluster();

    int inUse();

    @Override
    void close();
}
