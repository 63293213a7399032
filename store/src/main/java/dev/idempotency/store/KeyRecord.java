package dev.idempotency.store;

import java.time.Instant;
import java.util.Collections;
import java.util.List;
import java.util.Optional;

/** A key as an operator sees it. Timestamps are the database's. */
public final class KeyRecord {
    private final String scope;
    private final String key;
    private final String fingerprint;
    private final KeyStatus status;
    private final int attempts;
    private final Instant leaseExpiresAt;
    private final Instant createdAt;
    private final Instant updatedAt;
    private final Instant expiresAt;
    private final StoredResponse response;
    private final Integer responseStatus;
    private final int responseBytes;
    private final List<EffectMark> effects;

    /** A key with its stored response, if any. */
    public KeyRecord(String scope, String key, String fingerprint, KeyStatus status, int attempts, Instant leaseExpiresAt,
                     Instant createdAt, Instant updatedAt, Instant expiresAt, StoredResponse response) {
        this(scope, key, fingerprint, status, attempts, leaseExpiresAt, createdAt, updatedAt, expiresAt, response,
                response == null ? null : response.status(), response == null ? -1 : response.bodyLength(),
                Collections.<EffectMark>emptyList());
    }

    /** A key as a listing shows it: the stored response's status and size, not the response itself. */
    public static KeyRecord summary(String scope, String key, String fingerprint, KeyStatus status, int attempts, Instant leaseExpiresAt,
                                    Instant createdAt, Instant updatedAt, Instant expiresAt, Integer responseStatus, int responseBytes) {
        return new KeyRecord(scope, key, fingerprint, status, attempts, leaseExpiresAt, createdAt, updatedAt, expiresAt, null,
                responseStatus, responseBytes, Collections.<EffectMark>emptyList());
    }

    private KeyRecord(String scope, String key, String fingerprint, KeyStatus status, int attempts, Instant leaseExpiresAt,
                      Instant createdAt, Instant updatedAt, Instant expiresAt, StoredResponse response, Integer responseStatus,
                      int responseBytes, List<EffectMark> effects) {
        this.scope = scope;
        this.key = key;
        this.fingerprint = fingerprint;
        this.status = status;
        this.attempts = attempts;
        this.leaseExpiresAt = leaseExpiresAt;
        this.createdAt = createdAt;
        this.updatedAt = updatedAt;
        this.expiresAt = expiresAt;
        this.response = response;
        this.responseStatus = responseStatus;
        this.responseBytes = responseBytes;
        this.effects = effects;
    }

    public String scope() { return scope; }
    public String key() { return key; }
    public String fingerprint() { return fingerprint; }
    public KeyStatus status() { return status; }
    /** How many times a request took ownership of this key. */
    public int attempts() { return attempts; }
    public Optional<Instant> leaseExpiresAt() { return Optional.ofNullable(leaseExpiresAt); }
    public Instant createdAt() { return createdAt; }
    public Instant updatedAt() { return updatedAt; }
    public Instant expiresAt() { return expiresAt; }
    /** The stored response; empty when there is none, and in a listing, which carries only its status and size. */
    public Optional<StoredResponse> response() { return Optional.ofNullable(response); }
    /** The stored response's status, in a listing too. */
    public Optional<Integer> responseStatus() { return Optional.ofNullable(responseStatus); }
    /** The stored body's size in bytes; -1 when no response is stored. */
    public int responseBytes() { return responseBytes; }

    /**
     * The effect marks its current owner left (why an unknown outcome is unknown, under
     * {@link ExpiredLeasePolicy#TRANSACTION}), oldest first; empty in a listing.
     */
    public List<EffectMark> effects() { return effects; }

    /** This record with its owner's effect marks. */
    public KeyRecord withEffects(List<EffectMark> marks) {
        return new KeyRecord(scope, key, fingerprint, status, attempts, leaseExpiresAt, createdAt, updatedAt, expiresAt,
                response, responseStatus, responseBytes, Collections.unmodifiableList(new java.util.ArrayList<>(marks)));
    }

    @Override
    public String toString() {
        return "KeyRecord[" + scope + "/" + key + " " + status + ", attempts=" + attempts + ", expires " + expiresAt + "]";
    }
}
