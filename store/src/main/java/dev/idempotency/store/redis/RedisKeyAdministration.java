package dev.idempotency.store.redis;

import dev.idempotency.store.KeyQuery;
import dev.idempotency.store.KeyRecord;
import dev.idempotency.store.KeyStatus;
import dev.idempotency.store.StoreDataException;
import dev.idempotency.store.StoreSettings;
import dev.idempotency.store.StoredResponse;

import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.EnumMap;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;

/**
 * The operator's side of the Redis store: find, list and count keys through the buckets' indexes (never
 * {@code KEYS} or {@code SCAN} of the keyspace), the server's clock, and the manual resolutions of a key whose outcome
 * is unknown. Nothing here runs on a request's path; it uses the background connections.
 */
final class RedisKeyAdministration {
    private static final byte[] RETRY = KeyLayout.bytes("RETRY");
    private static final byte[] COMPLETE = KeyLayout.bytes("COMPLETE");
    private static final byte[] NOTHING = new byte[0];
    /** A creation-time bound no key reaches (exact as a Lua number: below 2^53). */
    private static final long ANY_TIME = (1L << 53) - 1;

    private final StoreSettings settings;
    private final KeyLayout layout;
    private final RedisConnections connections;

    RedisKeyAdministration(StoreSettings settings, KeyLayout layout, RedisConnections connections) {
        this.settings = settings;
        this.layout = layout;
        this.connections = connections;
    }

    Optional<KeyRecord> find(String scope, String key) {
        RedisIdempotencyStore.requireIdentity(scope, key);
        byte[] id = KeyLayout.id(scope, key);
        byte[] hash = layout.hash(id);
        Map<byte[], byte[]> raw = connections.background("find", hash, redis -> redis.hgetAll(hash));
        if (raw.isEmpty()) return Optional.empty();
        Map<String, byte[]> fields = new HashMap<>();
        raw.forEach((name, value) -> fields.put(new String(name, StandardCharsets.UTF_8), value));
        String where = "key '" + key + "' of scope '" + scope + "' in Redis store '" + layout.prefix() + "'";
        KeyStatus status = status(fields.get("status"), where);
        StoredResponse response = fields.containsKey("rstatus")
                ? ResponseCodec.decode(fields.get("rstatus"), fields.get("rheaders"), fields.get("rbody"), where)
                : null;
        return Optional.of(new KeyRecord(scope, key, text(fields.get("fingerprint")), status,
                (int) number(fields.get("attempts"), where), leaseOf(status, fields.get("lease"), where),
                instant(fields.get("created"), where), instant(fields.get("updated"), where),
                instant(fields.get("expires"), where), response));
    }

    /**
     * Each bucket's oldest matches, merged oldest first: a bucket never gives more than the answer's limit, and each
     * script looks at one chunk of a bucket's index. Not a snapshot: keys changing meanwhile may show or not.
     */
    List<KeyRecord> list(KeyQuery query) {
        Objects.requireNonNull(query, "query");
        if (query.scope() != null) {
            RedisIdempotencyStore.requireLength("scope", query.scope(), RedisIdempotencyStore.MAX_IDENTIFIER_LENGTH);
        }
        byte[] status = query.status() == null ? NOTHING : KeyLayout.bytes(query.status().name());
        byte[] scope = query.scope() == null ? NOTHING : KeyLayout.scopePrefix(query.scope());
        // One bound for every bucket, from one reading of the server's clock.
        long newest = query.olderThan() == null ? ANY_TIME
                : databaseTime().toEpochMilli() - query.olderThan().toMillis();
        byte[] bound = RedisIdempotencyStore.number(newest);
        List<KeyRecord> records = new ArrayList<>();
        for (int b = 0; b < KeyLayout.BUCKETS; b++) {
            int inBucket = 0;
            long from = 0;
            while (from >= 0 && inBucket < query.limit()) {
                int bucket = b;
                long start = from;
                int wanted = query.limit() - inBucket;
                List<?> answer = connections.background("list", layout.created(b), redis -> (List<?>) Script.LIST.run(
                        redis, new byte[][] {layout.created(bucket)}, layout.base(bucket), status, scope, bound,
                        RedisIdempotencyStore.number(wanted), RedisIdempotencyStore.number(start)));
                for (Object row : (List<?>) answer.get(0)) {
                    records.add(summary((List<?>) row));
                    inBucket++;
                }
                from = (Long) answer.get(1);
            }
        }
        records.sort(Comparator.comparing(KeyRecord::createdAt).thenComparing(KeyRecord::scope)
                .thenComparing(KeyRecord::key));
        return records.size() > query.limit() ? new ArrayList<>(records.subList(0, query.limit())) : records;
    }

    private KeyRecord summary(List<?> row) {
        String[] scopeAndKey = layout.scopeAndKey((byte[]) row.get(0));
        String where = "key '" + scopeAndKey[1] + "' of scope '" + scopeAndKey[0] + "' in Redis store '"
                + layout.prefix() + "'";
        KeyStatus status = status((byte[]) row.get(1), where);
        byte[] responseStatus = (byte[]) row.get(8);
        return KeyRecord.summary(scopeAndKey[0], scopeAndKey[1], text((byte[]) row.get(2)), status,
                (int) number((byte[]) row.get(3), where), leaseOf(status, (byte[]) row.get(4), where),
                instant((byte[]) row.get(5), where), instant((byte[]) row.get(6), where), instant((byte[]) row.get(7),
                        where),
                responseStatus == null ? null : (int) number(responseStatus, where), ((Long) row.get(9)).intValue());
    }

    /** From the counts each bucket keeps as its keys change status: no key is read. */
    Map<KeyStatus, Long> countByStatus() {
        Map<KeyStatus, Long> counts = new EnumMap<>(KeyStatus.class);
        String where = "the counts of Redis store '" + layout.prefix() + "'";
        for (int b = 0; b < KeyLayout.BUCKETS; b++) {
            byte[] bucketCounts = layout.counts(b);
            for (Map.Entry<byte[], byte[]> e : connections.background("count keys", bucketCounts,
                    redis -> redis.hgetAll(bucketCounts)).entrySet()) {
                long n = number(e.getValue(), where);
                if (n != 0) counts.merge(status(e.getKey(), where), n, Long::sum);
            }
        }
        counts.values().removeIf(n -> n == 0);
        return counts;
    }

    Instant databaseTime() {
        // In a Cluster, the clock of the master that holds the layout marker: each master's leases run on its own.
        List<String> time = connections.background("read the server's clock", layout.layoutMarker(),
                redis -> redis.time());
        return Instant.ofEpochSecond(Long.parseLong(time.get(0)), Long.parseLong(time.get(1)) * 1000);
    }

    boolean resolveForRetry(String scope, String key) {
        return resolve("resolve for retry", scope, key, RETRY, NOTHING, NOTHING, NOTHING);
    }

    boolean resolveAsCompleted(String scope, String key, StoredResponse response) {
        Objects.requireNonNull(response, "response");
        return resolve("resolve as completed", scope, key, COMPLETE, ResponseCodec.status(response),
                ResponseCodec.headers(response), response.body());
    }

    private boolean resolve(String operation, String scope, String key, byte[] mode, byte[] status, byte[] headers,
            byte[] body) {
        RedisIdempotencyStore.requireIdentity(scope, key);
        byte[] id = KeyLayout.id(scope, key);
        byte[] ttl = RedisIdempotencyStore.number(settings.ttl().toMillis());
        byte[][] keys = layout.keysOf(id);
        return connections.background(operation, keys[0], redis -> RedisIdempotencyStore.one(Script.RESOLVE.run(redis,
                keys, id, mode, ttl, status, headers, body)));
    }

    boolean delete(String scope, String key) {
        RedisIdempotencyStore.requireIdentity(scope, key);
        byte[] id = KeyLayout.id(scope, key);
        byte[][] keys = layout.keysOf(id);
        return connections.background("delete", keys[0], redis -> RedisIdempotencyStore.one(Script.DELETE.run(redis,
                keys, id)));
    }

    private static KeyStatus status(byte[] raw, String where) {
        try {
            return KeyStatus.valueOf(text(raw));
        } catch (IllegalArgumentException | NullPointerException e) {
            throw new StoreDataException(where + " has status " + text(raw) + ", which this version cannot read", e);
        }
    }

    /** A key shows a lease only while in flight (the scripts drop it on leaving that status). */
    private static Instant leaseOf(KeyStatus status, byte[] raw, String where) {
        return status == KeyStatus.IN_FLIGHT && raw != null ? instant(raw, where) : null;
    }

    private static Instant instant(byte[] millis, String where) {
        return Instant.ofEpochMilli(number(millis, where));
    }

    private static long number(byte[] raw, String where) {
        try {
            return Long.parseLong(text(raw));
        } catch (NumberFormatException | NullPointerException e) {
            throw new StoreDataException(where + " holds '" + text(raw) + "' where a number belongs", e);
        }
    }

    private static String text(byte[] raw) {
        return raw == null ? null : new String(raw, StandardCharsets.UTF_8);
    }
}
