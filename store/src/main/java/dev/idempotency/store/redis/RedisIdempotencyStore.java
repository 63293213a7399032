package dev.idempotency.store.redis;

import dev.idempotency.store.EffectMark;
import dev.idempotency.store.IdempotencyStore;
import dev.idempotency.store.KeyQuery;
import dev.idempotency.store.KeyRecord;
import dev.idempotency.store.KeyStatus;
import dev.idempotency.store.OwnershipToken;
import dev.idempotency.store.Reservation;
import dev.idempotency.store.StoreConfigurationException;
import dev.idempotency.store.StoreDataException;
import dev.idempotency.store.StoreException;
import dev.idempotency.store.StoreSettings;
import dev.idempotency.store.StoreUnavailableException;
import dev.idempotency.store.StoredResponse;
import redis.clients.jedis.Jedis;
import redis.clients.jedis.Pipeline;
import redis.clients.jedis.Response;
import redis.clients.jedis.exceptions.JedisNoScriptException;
import redis.clients.jedis.params.SetParams;

import java.nio.charset.StandardCharsets;
import java.security.SecureRandom;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.TreeMap;
import java.util.function.IntConsumer;

/**
 * {@link IdempotencyStore} on Redis (a standalone server, the master Sentinel names, or a Cluster): one hash per key
 * ({@link KeyLayout}), every compare-and-set one Lua script ({@link Script}) run by the server on its own clock, so a
 * lease or a ttl never depends on a node's clock. Its parts: {@link RedisConnections} (pools, timeouts, failures),
 * {@link RedisUpkeep} (sweep and purge by the buckets' indexes), {@link RedisKeyAdministration} (the operator's side),
 * {@link RedisStoreCheck} (what must hold of the server). What Redis cannot do as the JDBC stores do is refused before
 * anything connects ({@link RedisSettings}).
 */
public final class RedisIdempotencyStore implements IdempotencyStore {
    /** Longest scope or key, in characters, as for every store family. */
    static final int MAX_IDENTIFIER_LENGTH = 255;
    private static final int MAX_FINGERPRINT_LENGTH = 128;
    private static final int SECRET_BYTES = 32;
    /** Renewals per pipeline: bounds one round trip's size and the server's time on it. */
    private static final int RENEW_CHUNK = 500;
    private static final byte[] FIRST = KeyLayout.bytes("0");
    private static final byte[] REPEATED = KeyLayout.bytes("1");

    private final StoreSettings settings;
    private final RedisEndpoint endpoint;
    private final KeyLayout layout;
    private final RedisConnections connections;
    private final RedisUpkeep upkeep;
    private final RedisKeyAdministration administration;
    private final byte[] lease;
    private final byte[] ttl;
    private final byte[] policy;
    private final byte[] retention;
    private final ReplicaAcknowledgement replicas;
    private volatile byte[] installationSecret;
    /** What the last check found worth an operator's attention (see {@link #cautions}). */
    private volatile List<String> cautions = Collections.emptyList();
    /**
     * Set by a sweep that found a master which may evict keys (one added or promoted since start-up, or reconfigured),
     * cleared by the next that finds none: reservations are refused meanwhile, as the store refuses to start on one.
     */
    private volatile String evictingMaster;

    private RedisIdempotencyStore(StoreSettings settings) {
        String refused = RedisSettings.refusal(settings);
        if (refused != null) throw new StoreConfigurationException(refused);
        this.settings = settings;
        this.endpoint = RedisEndpoint.of(settings);
        this.layout = new KeyLayout(settings.table());
        this.connections = new RedisConnections(endpoint, settings);
        this.upkeep = new RedisUpkeep(settings, layout, connections);
        this.administration = new RedisKeyAdministration(settings, layout, connections);
        this.lease = number(settings.lease().toMillis());
        this.ttl = number(settings.ttl().toMillis());
        this.policy = KeyLayout.bytes(settings.expiredLeasePolicy().name());
        this.retention = number(settings.unknownRetention().toMillis());
        this.replicas = new ReplicaAcknowledgement(settings.replicaAcks(), settings.queryTimeout(), endpoint);
    }

    /** Opens the store without connecting: connections come on first use ({@link #checkSchema} connects at once). */
    public static RedisIdempotencyStore open(StoreSettings settings) {
        return new RedisIdempotencyStore(Objects.requireNonNull(settings, "settings"));
    }

    public StoreSettings settings() { return settings; }

    RedisConnections connections() { return connections; }

    KeyLayout layout() { return layout; }

    RedisEndpoint endpoint() { return endpoint; }

    @Override public String dialectName() { return "Redis"; }

    @Override
    public void checkSchema() {
        cautions = RedisStoreCheck.check(connections, settings, layout, endpoint);
    }

    @Override public List<String> cautions() { return cautions; }

    @Override
    public Reservation reserve(String scope, String key, String fingerprint) {
        requireIdentity(scope, key);
        requireLength("fingerprint", fingerprint, MAX_FINGERPRINT_LENGTH);
        String evicting = evictingMaster;
        if (evicting != null) {
            throw new StoreUnavailableException("idempotency store refuses reservations until its next sweep finds no master"
                    + " that may evict keys: " + evicting, null);
        }
        // Made before the write, so that it is known even if the write's answer never arrives.
        OwnershipToken owned = OwnershipToken.fresh(scope, key);
        byte[] id = KeyLayout.id(scope, key);
        byte[][] keys = layout.keysOf(id);
        List<?> answer = (List<?>) connections.reserving(owned, keys[0], redis -> {
            List<?> done = (List<?>) Script.RESERVE.run(redis, keys, id, KeyLayout.bytes(fingerprint),
                    KeyLayout.bytes(owned.token()), lease, ttl, policy, retention);
            String wrote = text(done.get(0));
            if (wrote.equals("ACQUIRED") || wrote.equals("REACQUIRED") || wrote.equals("OUTCOME_UNKNOWN")) {
                replicas.await(redis, layout.acknowledgements(id), "reserve", owned);
            }
            return done;
        });
        String outcome = text(answer.get(0));
        switch (outcome) {
            case "ACQUIRED": return Reservation.acquired(owned);
            case "REACQUIRED": return Reservation.reacquired(owned);
            case "MISMATCH": return Reservation.mismatch();
            case "OUTCOME_UNKNOWN": return Reservation.outcomeUnknown();
            case "IN_FLIGHT": return Reservation.inFlight((Long) answer.get(1));
            case "REPLAY":
                return Reservation.replay(ResponseCodec.decode((byte[]) answer.get(1), (byte[]) answer.get(2),
                        (byte[]) answer.get(3), describe(scope, key)));
            default:
                throw new StoreDataException(describe(scope, key) + " has status " + text(answer.get(1))
                        + ", which this version cannot act on", null);
        }
    }

    @Override
    public boolean complete(OwnershipToken token, StoredResponse response) {
        return recordResponse(Script.COMPLETE, "complete", token, response);
    }

    @Override
    public boolean replaceResponse(OwnershipToken token, StoredResponse response) {
        return recordResponse(Script.REPLACE, "replace response", token, response);
    }

    private boolean recordResponse(Script script, String operation, OwnershipToken token, StoredResponse response) {
        Objects.requireNonNull(token, "token");
        Objects.requireNonNull(response, "response");
        byte[] id = KeyLayout.id(token.scope(), token.key());
        byte[] status = ResponseCodec.status(response);
        byte[] headers = ResponseCodec.headers(response);
        byte[] body = response.body();
        byte[] owner = KeyLayout.bytes(token.token());
        byte[][] keys = layout.keysOf(id);
        // Sent again after a broken connection, a completion that went in the first time must still say it won.
        return connections.request(operation, keys[0], (redis, repeated) -> {
            boolean won = one(script.run(redis, keys, id, owner, status, headers, body,
                    repeated ? REPEATED : FIRST));
            if (won) replicas.await(redis, layout.acknowledgements(id), operation, null);
            return won;
        });
    }

    @Override
    public boolean release(OwnershipToken token) {
        Objects.requireNonNull(token, "token");
        byte[] id = KeyLayout.id(token.scope(), token.key());
        byte[][] keys = layout.keysOf(id);
        return connections.request("release", keys[0], redis -> one(Script.RELEASE.run(redis, keys, id,
                KeyLayout.bytes(token.token()))));
    }

    /**
     * One script per token, pipelined: a heartbeat's renewals cost one round trip per {@value #RENEW_CHUNK} tokens,
     * and each stays a compare-and-set of its own key. In a Cluster, one pipeline per bucket, on its slot's master.
     */
    @Override
    public int renew(Collection<OwnershipToken> tokens) {
        if (tokens.isEmpty()) return 0;
        Map<Integer, List<OwnershipToken>> groups = new TreeMap<>();
        for (OwnershipToken t : tokens) {
            int group = connections.cluster() ? KeyLayout.bucket(KeyLayout.id(t.scope(), t.key())) : 0;
            groups.computeIfAbsent(group, g -> new ArrayList<>()).add(t);
        }
        int renewed = 0;
        StoreException failed = null;
        for (List<OwnershipToken> group : groups.values()) {
            OwnershipToken first = group.get(0);
            try {
                renewed += connections.background("renew", layout.hash(KeyLayout.id(first.scope(), first.key())),
                        redis -> renewInChunks(redis, group));
            } catch (StoreException e) {
                // One master away must not cost the leases on the others: they are renewed all the same.
                if (failed == null) failed = e;
                else failed.addSuppressed(e);
            }
        }
        if (failed != null) throw failed;
        return renewed;
    }

    private int renewInChunks(Jedis redis, List<OwnershipToken> all) {
        int renewed = 0;
        for (int from = 0; from < all.size(); from += RENEW_CHUNK) {
            List<OwnershipToken> chunk = all.subList(from, Math.min(all.size(), from + RENEW_CHUNK));
            try {
                renewed += renewAll(redis, chunk);
            } catch (JedisNoScriptException e) {
                Script.RENEW.cache(redis); // renewal is idempotent: sending the chunk again is safe
                renewed += renewAll(redis, chunk);
            }
        }
        return renewed;
    }

    private int renewAll(Jedis redis, List<OwnershipToken> tokens) {
        Pipeline pipeline = redis.pipelined();
        List<Response<Object>> answers = new ArrayList<>(tokens.size());
        for (OwnershipToken t : tokens) {
            byte[] id = KeyLayout.id(t.scope(), t.key());
            byte[][] keys = layout.keysOf(id);
            answers.add(Script.RENEW.queue(pipeline, new byte[][] {keys[0], keys[1]}, id, KeyLayout.bytes(t.token()),
                    lease));
        }
        pipeline.sync();
        int renewed = 0;
        for (Response<Object> answer : answers) if (one(answer.get())) renewed++;
        return renewed;
    }

    /**
     * Effect marks decide expired leases under {@code recovery=transaction}, which a Redis store refuses, so none is
     * kept; the answer still says whether the token owns its key in flight, as the caller's refusal of an effect by a
     * request that lost its key relies on.
     */
    @Override
    public boolean recordEffect(OwnershipToken token, EffectMark.Kind kind, String detail) {
        Objects.requireNonNull(token, "token");
        Objects.requireNonNull(kind, "kind");
        byte[] hash = layout.hash(KeyLayout.id(token.scope(), token.key()));
        List<byte[]> owner = connections.request("record an effect", hash,
                redis -> redis.hmget(hash, KeyLayout.bytes("status"), KeyLayout.bytes("token")));
        return "IN_FLIGHT".equals(text(owner.get(0))) && token.token().equals(text(owner.get(1)));
    }

    @Override
    public int sweepExpiredLeases() {
        int swept = upkeep.sweepExpiredLeases();
        String evicting = RedisStoreCheck.evictingMaster(connections, settings, endpoint);
        evictingMaster = evicting;
        if (evicting != null) {
            throw new StoreUnavailableException("idempotency store refuses reservations: " + evicting, null);
        }
        return swept;
    }

    @Override
    public int purgeExpired(IntConsumer afterEachBatch) {
        return upkeep.purgeExpired(afterEachBatch);
    }

    /** Set-if-absent, then read: nodes racing on first use all read the one secret that got in. */
    @Override
    public byte[] installationSecret() {
        byte[] known = installationSecret;
        if (known == null) {
            byte[] candidate = new byte[SECRET_BYTES];
            new SecureRandom().nextBytes(candidate);
            known = connections.request("read the installation secret", layout.secret(), redis -> {
                redis.set(layout.secret(), candidate, SetParams.setParams().nx());
                return redis.get(layout.secret());
            });
            if (known == null || known.length != SECRET_BYTES) {
                throw new StoreDataException("the installation secret at Redis key '" + layout.prefix() + ":secret' is "
                        + (known == null ? "missing" : known.length + " bytes long") + ", expected " + SECRET_BYTES
                        + " bytes; delete it and every node will agree on a new one", null);
            }
            installationSecret = known;
        }
        return known.clone();
    }

    @Override
    public int connectionsInUse() {
        return connections.requestConnectionsInUse();
    }

    @Override public Optional<KeyRecord> find(String scope, String key) { return administration.find(scope, key); }
    @Override public List<KeyRecord> list(KeyQuery query) { return administration.list(query); }
    @Override public Map<KeyStatus, Long> countByStatus() { return administration.countByStatus(); }
    @Override public Instant databaseTime() { return administration.databaseTime(); }
    @Override
    public boolean resolveForRetry(String scope, String key) {
        return administration.resolveForRetry(scope, key);
    }

    @Override
    public boolean resolveAsCompleted(String scope, String key, StoredResponse response) {
        return administration.resolveAsCompleted(scope, key, response);
    }

    @Override public boolean delete(String scope, String key) { return administration.delete(scope, key); }

    @Override
    public void close() {
        connections.close();
    }

    String describe(String scope, String key) {
        return "key '" + key + "' of scope '" + scope + "' in Redis store '" + layout.prefix() + "'";
    }

    static void requireIdentity(String scope, String key) {
        requireLength("scope", scope, MAX_IDENTIFIER_LENGTH);
        requireLength("key", key, MAX_IDENTIFIER_LENGTH);
        if (key.isEmpty()) throw new IllegalArgumentException("key must not be empty");
    }

    static void requireLength(String what, String value, int max) {
        Objects.requireNonNull(value, what);
        if (value.length() > max) throw new IllegalArgumentException(what + " longer than " + max + " characters");
    }

    static byte[] number(long n) {
        return KeyLayout.bytes(Long.toString(n));
    }

    static boolean one(Object answer) {
        return Long.valueOf(1).equals(answer);
    }

    /** A script's answer as text; null stays null. */
    static String text(Object answer) {
        if (answer == null) return null;
        return answer instanceof byte[] ? new String((byte[]) answer, StandardCharsets.UTF_8) : String.valueOf(answer);
    }
}
