package dev.idempotency.store;

import dev.idempotency.store.redis.RedisClusterTestServer;

/** The key's life (KeyLifeContract), unchanged, on a Redis Cluster of three masters and their replicas. */
class RedisClusterStoreTest extends RedisStoreTest {
    @Override
    protected String url() {
        return RedisClusterTestServer.url();
    }

    @Override
    protected void moveTime(String scope, String key, String field, long seconds) {
        RedisClusterTestServer.setTime(prefix, scope, key, field, seconds);
    }

    @Override
    protected boolean ranOut(String scope, String key) {
        return RedisClusterTestServer.leaseRanOut(prefix, scope, key);
    }

    @Override
    protected void dropPrefix() {
        RedisClusterTestServer.dropPrefix(prefix);
    }
}
