package dev.idempotency.store;

import java.time.Duration;
import java.util.Objects;

/** Which keys an operator wants to see: any combination of status, scope and minimum age, oldest first, bounded. */
public final class KeyQuery {
    private final KeyStatus status;
    private final String scope;
    private final Duration olderThan;
    private final int limit;

    private KeyQuery(KeyStatus status, String scope, Duration olderThan, int limit) {
        if (limit < 1) throw new IllegalArgumentException("limit must be positive: " + limit);
        if (olderThan != null && olderThan.isNegative()) throw new IllegalArgumentException("olderThan must not be negative: " + olderThan);
        this.status = status;
        this.scope = scope;
        this.olderThan = olderThan;
        this.limit = limit;
    }

    /** Every key, at most {@code limit} of them. */
    public static KeyQuery all(int limit) {
        return new KeyQuery(null, null, null, limit);
    }

    public KeyQuery withStatus(KeyStatus status) {
        return new KeyQuery(Objects.requireNonNull(status, "status"), scope, olderThan, limit);
    }

    public KeyQuery inScope(String scope) {
        return new KeyQuery(status, Objects.requireNonNull(scope, "scope"), olderThan, limit);
    }

    /** Keys created more than this long ago (by the database's clock). */
    public KeyQuery olderThan(Duration age) {
        return new KeyQuery(status, scope, Objects.requireNonNull(age, "age"), limit);
    }

    /** Null: any status. */
    public KeyStatus status() { return status; }
    /** Null: any scope. */
    public String scope() { return scope; }
    /** Null: any age. */
    public Duration olderThan() { return olderThan; }
    public int limit() { return limit; }
}
