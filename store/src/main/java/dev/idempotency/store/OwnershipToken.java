package dev.idempotency.store;

import java.security.SecureRandom;
import java.util.Objects;
import java.util.UUID;
import java.util.concurrent.atomic.AtomicLong;

/** Proof that a request owns a key: the key's identity and the unique token written into it at reservation. */
public final class OwnershipToken {
    private final String scope;
    private final String key;
    private final String token;

    public OwnershipToken(String scope, String key, String token) {
        this.scope = Objects.requireNonNull(scope, "scope");
        this.key = Objects.requireNonNull(key, "key");
        this.token = Objects.requireNonNull(token, "token");
    }

    /** This JVM's half of every token it makes: random, so that no two nodes share one. */
    private static final long NODE = new SecureRandom().nextLong();
    private static final AtomicLong SERIAL = new AtomicLong(new SecureRandom().nextLong());

    /**
     * A new attempt's token for the key: unique among every attempt of every node (this JVM's random half and a
     * serial), in a UUID's form. It needs no secrecy (it never leaves the agent and its store), and a SecureRandom
     * call per request showed in profiles.
     */
    public static OwnershipToken fresh(String scope, String key) {
        return new OwnershipToken(scope, key, new UUID(NODE, SERIAL.incrementAndGet()).toString());
    }

    public String scope() { return scope; }
    public String key() { return key; }
    public String token() { return token; }

    @Override
    public boolean equals(Object o) {
        if (!(o instanceof OwnershipToken)) return false;
        OwnershipToken other = (OwnershipToken) o;
        return token.equals(other.token) && key.equals(other.key) && scope.equals(other.scope);
    }

    @Override
    public int hashCode() { return token.hashCode(); }

    @Override
    public String toString() { return "OwnershipToken[" + scope + "/" + key + "]"; }
}
