package dev.idempotency.store;

import dev.idempotency.store.redis.RedisIdempotencyStore;
import dev.idempotency.store.redis.RedisTestServer;
import org.junit.jupiter.api.AfterEach;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

/**
 * The key's life (KeyLifeContract), unchanged, on a standalone Redis server; each test under a prefix of its own. A
 * subclass runs it on another Redis topology by naming the server and how keys are reached behind the store's back.
 */
class RedisStoreTest extends KeyLifeContract<RedisIdempotencyStore> {
    private final List<RedisIdempotencyStore> opened = new ArrayList<>();
    protected final String prefix = RedisTestServer.randomPrefix();

    protected String url() {
        return RedisTestServer.url();
    }

    /** Moves a key's time (a hash field: lease, created, updated, expires) behind the store's back. */
    protected void moveTime(String scope, String key, String field, long seconds) {
        RedisTestServer.setTime(prefix, scope, key, field, seconds);
    }

    protected boolean ranOut(String scope, String key) {
        return RedisTestServer.leaseRanOut(prefix, scope, key);
    }

    protected void dropPrefix() {
        RedisTestServer.dropPrefix(prefix);
    }

    /** A connect timeout long against a loaded machine: these tests are about what the store does, not its speed. */
    @Override
    protected StoreSettings.Builder settings() {
        return StoreSettings.builder().url(url()).table(prefix).connectTimeout(Duration.ofSeconds(15));
    }

    @Override
    protected RedisIdempotencyStore open(StoreSettings.Builder builder) {
        RedisIdempotencyStore store = RedisIdempotencyStore.open(builder.build());
        opened.add(store);
        return store;
    }

    @Override
    protected void setTime(String scope, String key, KeyTime time, long seconds) {
        String field = time == KeyTime.LEASE_EXPIRES ? "lease" : time.name().toLowerCase(java.util.Locale.ROOT);
        moveTime(scope, key, field, seconds);
    }

    @Override
    protected boolean leaseRanOut(String scope, String key) {
        return ranOut(scope, key);
    }

    @AfterEach
    void dropKeys() {
        opened.forEach(RedisIdempotencyStore::close);
        dropPrefix();
    }
}
