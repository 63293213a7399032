package dev.idempotency.store;

import java.time.Instant;
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

    public KeyRecord(String scope, String key, String fingerprint, KeyStatus status, int attempts, Instant leaseExpiresAt,
                     Instant createdAt, Instant updatedAt, Instant expiresAt, StoredResponse response) {
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
    public Optional<StoredResponse> response() { return Optional.ofNullable(response); }

    @Override
    public String toString() {
        return "KeyRecord[" + scope + "/" + key + " " + status + ", attempts=" + attempts + ", expires " + expiresAt + "]";
    }
}
