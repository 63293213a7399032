package dev.idempotency.store.jdbc;

import java.util.concurrent.atomic.AtomicLongArray;

/**
 * The keys this store completed (or replayed) lately, as a hint only: a retry that reaches the JVM that answered the
 * first request (one server, or a sticky balancer) is most likely a replay, and reading the key first answers it in
 * one round trip instead of a refused insert and then a read. A hint decides nothing: what the key holds does, and a
 * key that reads as new (gone, expired) takes the usual path. Lossy by design: one 64-bit hash per slot, a newer key
 * takes an older one's slot, and a collision costs one read.
 */
final class RecentlyCompleted {
    private static final int SLOTS = 1 << 13; // 64 KiB: a few thousand recent keys

    private final AtomicLongArray hashes = new AtomicLongArray(SLOTS);

    void remember(String scope, String key) {
        long h = hash(scope, key);
        hashes.lazySet(slot(h), h);
    }

    boolean mayHold(String scope, String key) {
        long h = hash(scope, key);
        return hashes.get(slot(h)) == h;
    }

    private static int slot(long h) {
        return (int) (h >>> 40) & (SLOTS - 1);
    }

    /** Never 0, which an empty slot holds. */
    private static long hash(String scope, String key) {
        long h = scope.hashCode() * 0x9E3779B97F4A7C15L + key.hashCode();
        h ^= h >>> 33;
        h *= 0xFF51AFD7ED558CCDL;
        h ^= h >>> 33;
        h += key.length();
        return h == 0 ? 1 : h;
    }
}
