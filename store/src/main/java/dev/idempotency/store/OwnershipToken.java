package dev.idempotency.store;

import java.util.Objects;

/** Proof that a request owns a key: the key's identity and the random token written into it at reservation. */
public final class OwnershipToken {
    private final String scope;
    private final String key;
    private final String token;

    public OwnershipToken(String scope, String key, String token) {
        this.scope = Objects.requireNonNull(scope, "scope");
        this.key = Objects.requireNonNull(key, "key");
        this.token = Objects.requireNonNull(token, "token");
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
