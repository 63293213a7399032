package dev.idempotency.store.redis;

import redis.clients.jedis.HostAndPort;
import redis.clients.jedis.Jedis;
import redis.clients.jedis.util.Pool;

import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.function.Supplier;

/** The connections to one server: a standalone one, or the master the sentinels name now ({@link RedisNodes}). */
final class ServerPool implements RedisNodes {
    private final Pool<Jedis> pool;
    private final Supplier<HostAndPort> master;

    ServerPool(Pool<Jedis> pool, Supplier<HostAndPort> master) {
        this.pool = pool;
        this.master = master;
    }

    @Override public Jedis borrow(byte[] key) { return pool.getResource(); }

    /** The one server, whichever node is named: there is no other. */
    @Override public Jedis borrow(HostAndPort node) { return pool.getResource(); }

    @Override public List<HostAndPort> masters() { return Collections.singletonList(master.get()); }

    @Override public void relearnSlots(long waitNanos) { }

    @Override public void dropIdle(byte[] key, HostAndPort node) { pool.clear(); }

    @Override
    public Map<String, Long> connectionsClosed() {
        return Collections.singletonMap(master.get().toString(), pool.getDestroyedCount());
    }

    @Override public boolean cluster() { return false; }

    @Override public int inUse() { return pool.getNumActive(); }

    @Override public void close() { pool.close(); }
}
