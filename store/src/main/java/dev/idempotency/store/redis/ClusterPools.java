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

/**
 * The connections to a Redis Cluster: a pool per node, the master of a key's slot found from the slot map the client
 * keeps ({@link RedisNodes}). The map is learnt from the seed nodes when the store opens and again after a MOVED or a
 * master that went away; there is no periodic refresh (and so no thread of the client's own).
 */
final class ClusterPools implements RedisNodes {
    private static final int SLOTS = 16384;

    private final ClusterConnectionProvider provider;

    /** Asks the seed nodes for the slot map at once: a Cluster that none of them answers for does not open. */
    ClusterPools(Set<HostAndPort> seeds, JedisClientConfig client, GenericObjectPoolConfig<Connection> config) {
        this.provider = new ClusterConnectionProvider(seeds, client, config);
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

    @Override public void relearnSlots() { provider.renewSlotCache(); }

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

    @Override public void close() { provider.close(); }
}
