package dev.idempotency.store.redis;

import org.apache.commons.pool2.impl.GenericObjectPoolConfig;
import redis.clients.jedis.Connection;
import redis.clients.jedis.ConnectionPool;
import redis.clients.jedis.HostAndPort;
import redis.clients.jedis.Jedis;
import redis.clients.jedis.JedisClientConfig;
import redis.clients.jedis.JedisClusterInfoCache;
import redis.clients.jedis.exceptions.JedisConnectionException;
import redis.clients.jedis.exceptions.JedisException;
import redis.clients.jedis.providers.ClusterConnectionProvider;
import redis.clients.jedis.util.JedisClusterCRC16;

import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;

/**
 * The connections to a Redis Cluster: a pool per node, the master of a key's slot found from the slot map the client
 * keeps ({@link RedisNodes}). The map is learnt from the seed nodes when the store opens, and again, by a thread of
 * its own, after a MOVED, a broken connection or a master that went away; there is no periodic refresh.
 */
final class ClusterPools implements RedisNodes {
    private static final int SLOTS = 16384;
    private static final long UNREACHABLE_MILLIS = 1000;

    private final ClusterConnectionProvider provider;
    /** Nodes that did not accept a connection, and when (System.nanoTime). */
    private final Map<HostAndPort, Long> unreachable = new ConcurrentHashMap<>();
    /** Learns the slot map when asked, on a thread of its own: asking (one node after another) may take long. */
    private final Thread relearner;
    private final Object learnt = new Object();
    /** Relearnings asked for, started and done (guarded by {@link #learnt}). */
    private long requested;
    private long started;
    private long completed;
    private volatile boolean closed;

    /** Asks the seed nodes for the slot map at once: a Cluster that none of them answers for does not open. */
    ClusterPools(Set<HostAndPort> seeds, JedisClientConfig client, GenericObjectPoolConfig<Connection> config) {
        this.provider = new ClusterConnectionProvider(seeds, client, config);
        relearner = new Thread(this::relearnWhenAsked, "idempotency-redis-slots");
        relearner.setDaemon(true);
        // Never a web application's loader: the store outlives any one of them.
        relearner.setContextClassLoader(ClusterPools.class.getClassLoader());
        relearner.start();
    }

    /** Runs until closed, whatever a relearning throws: a dead relearner would leave the map stale for good. */
    private void relearnWhenAsked() {
        while (true) {
            long ticket;
            synchronized (learnt) {
                while (!closed && requested == started) {
                    try {
                        learnt.wait();
                    } catch (InterruptedException stray) {
                        // only close() ends this thread
                    }
                }
                if (closed) return;
                ticket = requested; // every request asked so far is answered by this one
                started = ticket;
            }
            try {
                provider.renewSlotCache();
            } catch (Throwable noNodeAnswers) {
                // the next failed request asks again
            } finally {
                synchronized (learnt) {
                    completed = ticket;
                    learnt.notifyAll();
                }
            }
        }
    }

    @Override
    public Jedis borrow(byte[] key) {
        HostAndPort node = masterOf(key);
        // None in the map: the client looks for it.
        if (node == null) return new Jedis(provider.getConnectionFromSlot(JedisClusterCRC16.getSlot(key)));
        return borrow(node);
    }

    /** The master of {@code key}'s slot in the map learnt last; null when the map names none. */
    private HostAndPort masterOf(byte[] key) {
        return provider.getNode(JedisClusterCRC16.getSlot(key));
    }

    /**
     * A connection to the node; one that did not accept a connection within the last {@link #UNREACHABLE_MILLIS} is
     * refused at once ({@link NodeUnreachable}), so that the many buckets of a master that went away, each looked at
     * in turn by a heartbeat or a sweep, do not each wait for a connect timeout.
     */
    @Override
    public Jedis borrow(HostAndPort node) {
        Long failedAt = unreachable.get(node);
        if (failedAt != null) {
            long ago = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - failedAt);
            if (ago < UNREACHABLE_MILLIS) {
                throw new NodeUnreachable("node " + node + " did not accept a connection " + ago + " ms ago");
            }
            unreachable.remove(node, failedAt);
        }
        try {
            return new Jedis(provider.getConnection(node));
        } catch (JedisException e) {
            if (!RedisFailures.poolExhausted(e)) unreachable.put(node, System.nanoTime());
            throw e;
        }
    }

    /** A node known to be away just now: nothing was tried. */
    static final class NodeUnreachable extends JedisConnectionException {
        private static final long serialVersionUID = 1L;

        NodeUnreachable(String message) {
            super(message);
        }
    }

    @Override
    public List<HostAndPort> masters() {
        Set<HostAndPort> masters = new LinkedHashSet<>();
        for (int slot = 0; slot < SLOTS; slot++) {
            HostAndPort master = provider.getNode(slot);
            if (master != null) masters.add(master);
        }
        return new ArrayList<>(masters);
    }

    /** Asks the relearner, and waits for a map learnt since, at most {@code waitNanos}. */
    @Override
    public void relearnSlots(long waitNanos) {
        long until = System.nanoTime() + waitNanos;
        synchronized (learnt) {
            long ticket = ++requested;
            learnt.notifyAll();
            try {
                long left = waitNanos;
                while (completed < ticket && !closed && left > 0) {
                    TimeUnit.NANOSECONDS.timedWait(learnt, left);
                    left = until - System.nanoTime();
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
    }

    /** The pool of that node drops its idle connections; all pools do when the node is not known (no slot map). */
    @Override
    public void dropIdle(byte[] key, HostAndPort node) {
        HostAndPort served = node != null ? node : key != null ? masterOf(key) : null;
        ConnectionPool pool = served == null ? null
                : provider.getNodes().get(JedisClusterInfoCache.getNodeKey(served));
        if (pool != null) pool.clear();
        else provider.getNodes().values().forEach(ConnectionPool::clear);
    }

    @Override
    public Map<String, Long> connectionsClosed() {
        Map<String, Long> closed = new TreeMap<>();
        provider.getNodes().forEach((node, pool) -> closed.put(node, pool.getDestroyedCount()));
        return closed;
    }

    @Override public boolean cluster() { return true; }

    /** Lent out now, over every node's pool. */
    @Override
    public int inUse() {
        int inUse = 0;
        for (ConnectionPool pool : provider.getNodes().values()) inUse += pool.getNumActive();
        return inUse;
    }

    @Override
    public void close() {
        synchronized (learnt) {
            closed = true;
            learnt.notifyAll();
        }
        provider.close();
    }
}
