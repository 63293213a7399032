package dev.idempotency.store.redis;

import dev.idempotency.store.StoreDataException;

import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.zip.CRC32;

/**
 * Where a key lives in Redis. Each (scope, key) is one hash; its id is the scope's UTF-8 length in decimal, a colon,
 * the scope's bytes, then the key's bytes: unambiguous ({@code "a:b"+"c"} and {@code "a"+"b:c"} differ), byte for
 * byte, and a scope's keys share an id prefix. Keys are spread over {@link #BUCKETS} buckets; a bucket's hashes and
 * its indexes (leases, due times for the purge, creation times, counts by status) share one hash tag, so every script
 * touches one slot of a Redis Cluster. The prefix is the {@code table} setting, so stores with different tables share
 * a server without meeting.
 *
 * <p>The bucket count and the naming are the stored layout ({@link #VERSION}): changing either strands existing keys.
 */
final class KeyLayout {
    static final int BUCKETS = 64;
    static final String VERSION = "redis-layout-1 buckets=" + BUCKETS;

    private final String prefix;
    private final byte[][] bases = new byte[BUCKETS][];
    private final byte[][] leases = new byte[BUCKETS][];
    private final byte[][] dues = new byte[BUCKETS][];
    private final byte[][] created = new byte[BUCKETS][];
    private final byte[][] counts = new byte[BUCKETS][];
    private final byte[][] acknowledgements = new byte[BUCKETS][];

    KeyLayout(String prefix) {
        this.prefix = prefix;
        for (int b = 0; b < BUCKETS; b++) {
            String tag = "{" + prefix + ":" + (b < 10 ? "0" : "") + b + "}";
            bases[b] = bytes(tag + ":k:");
            leases[b] = bytes(tag + ":lease");
            dues[b] = bytes(tag + ":due");
            created[b] = bytes(tag + ":created");
            counts[b] = bytes(tag + ":counts");
            acknowledgements[b] = bytes(tag + ":acks");
        }
    }

    String prefix() { return prefix; }

    /** The id of (scope, key): see the class comment. */
    static byte[] id(String scope, String key) {
        byte[] s = bytes(scope);
        byte[] k = bytes(key);
        byte[] head = bytes(s.length + ":");
        byte[] id = Arrays.copyOf(head, head.length + s.length + k.length);
        System.arraycopy(s, 0, id, head.length, s.length);
        System.arraycopy(k, 0, id, head.length + s.length, k.length);
        return id;
    }

    /** What every id of a scope's keys starts with. */
    static byte[] scopePrefix(String scope) {
        return id(scope, "");
    }

    /** Scope and key of an id; a {@link StoreDataException} for bytes that are not one. */
    String[] scopeAndKey(byte[] id) {
        int colon = 0;
        while (colon < id.length && id[colon] != ':') colon++;
        try {
            int scopeLength = Integer.parseInt(new String(id, 0, colon, StandardCharsets.US_ASCII));
            int from = colon + 1;
            if (scopeLength < 0 || from + scopeLength > id.length) {
                throw new NumberFormatException("scope past the end");
            }
            return new String[] {new String(id, from, scopeLength, StandardCharsets.UTF_8),
                    new String(id, from + scopeLength, id.length - from - scopeLength, StandardCharsets.UTF_8)};
        } catch (NumberFormatException e) {
            throw new StoreDataException("a key in the index of Redis store '" + prefix
                    + "' is not an id of this version: "
                    + new String(id, StandardCharsets.UTF_8), e);
        }
    }

    /** The bucket of an id: stable across versions and nodes (CRC-32, as every JVM computes it). */
    static int bucket(byte[] id) {
        CRC32 crc = new CRC32();
        crc.update(id, 0, id.length);
        return (int) (crc.getValue() % BUCKETS);
    }

    byte[] hash(byte[] id) {
        byte[] base = bases[bucket(id)];
        byte[] hash = Arrays.copyOf(base, base.length + id.length);
        System.arraycopy(id, 0, hash, base.length, id.length);
        return hash;
    }

    /** The per-key scripts' keys: hash, lease index, due index, created index, counts. */
    byte[][] keysOf(byte[] id) {
        int b = bucket(id);
        return new byte[][] {hash(id), leases[b], dues[b], created[b], counts[b]};
    }

    /** The per-bucket scripts' keys: lease index, due index, created index, counts. */
    byte[][] indexesOf(int bucket) {
        return new byte[][] {leases[bucket], dues[bucket], created[bucket], counts[bucket]};
    }

    /** What a bucket's hash keys start with (the id follows). */
    byte[] base(int bucket) { return bases[bucket].clone(); }

    byte[] counts(int bucket) { return counts[bucket]; }

    /** A counter in an id's slot that {@code replica-acks} writes before it waits (see {@link ReplicaAcknowledgement}). */
    byte[] acknowledgements(byte[] id) { return acknowledgements[bucket(id)]; }

    byte[] lease(int bucket) { return leases[bucket]; }

    byte[] due(int bucket) { return dues[bucket]; }

    byte[] created(int bucket) { return created[bucket]; }

    byte[] secret() { return bytes(prefix + ":secret"); }

    byte[] layoutMarker() { return bytes(prefix + ":layout"); }

    static byte[] bytes(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }
}
