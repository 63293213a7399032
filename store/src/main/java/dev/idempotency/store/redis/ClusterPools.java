package dev.idempotency.store.redis;

import org.apache.commons.pool2.impl.GenericObjectPoolConfig;
import redis.clients.jedis.Connection;
import redis.clients.jedis.HostAndPort;
import redis.clients.jedis.Jedis;
import redis.clients.jedis.JedisClientConfig;
import redis.clients.jedis.providers.ClusterConnectionProvider;
import redis.clients.jedis.util.JedisClusterCRC16;

import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.TimeUnit;

/**
 * The connections to a Redis Cluster: a pool per node, the master of a key's slot found from the slot map the client
 * keeps ({@link RedisNodes}). The map is learnt from the seed nodes when the store opens, and again, by a thread of
 * its own, after a MOVED, a broken connection or a master that went away; there is no periodic refresh.
 */
final class ClusterPools implements RedisNodes {
    private static final int SLOTS = 16384;

    private final ClusterConnectionProvider provider;
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

    private void relearnWhenAsked() {
        while (true) {
            long ticket;
            synchronized (learnt) {
                try {
                    while (!closed && requested == started) learnt.wait();
                } catch (InterruptedException e) {
                    return; // closed
                }
                if (closed) return;
                ticket = requested; // every request asked so far is answered by this one
                started = ticket;
            }
            try {
                provider.renewSlotCache();
            } catch (RuntimeException noNodeAnswers) {
                // the next failed request asks again
            }
            synchronized (learnt) {
                completed = ticket;
                learnt.notifyAll();
            }
        }
    }

    @Override
    public Jedis borrow(byte[] key) {
        return new Jedis(provider.getConnectionFromSlot(JedisClusterCRC16.getSlot(key)));
    }

    @Override
    public Jedis borrow(HostAndPort node) {
        return new Jedis(provider.getConnection(node));
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

    /** Each node's pool drops its idle connections. */
    @Override
    public void dropIdle() {
        provider.getNodes().values().forEach(pool -> pool.clear());
    }

    @Override public boolean cluster() { return true; }

    /** Lent out now, over every node's pool. */
    @Override
    public int inUse() {
        int inUse = 0;
        for (redis.clients.jedis.ConnectionPool pool : provider.getNodes().values()) inUse += pool.getNumActive();
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
