package dev.idempotency.store;

import java.time.Instant;
import java.util.Objects;

/**
 * A durable note, written for a key's owner while its request ran, that the request may have had an effect. Under
 * {@link ExpiredLeasePolicy#TRANSACTION} a key whose owner died without one runs again; a key with one becomes
 * {@link KeyStatus#UNKNOWN}, and its marks say why.
 */
public final class EffectMark {

    public enum Kind {
        /** An application transaction on the store's database committed writes (written inside that transaction). */
        COMMIT,
        /** An autocommit write on the store's database was about to run: it may have written. */
        WRITE,
        /** An effect the agent cannot make atomic was about to start (outbound HTTP, a message, another database). */
        EXTERNAL,
        /** The agent could not watch the request's effects (XA transaction, work handed to other threads). */
        UNWATCHED,
        /**
         * An outbound call that carried a key derived from the request's own to a host that honours one: running the
         * request again repeats the call with the same key, which the host answers without acting twice.
         */
        KEYED_CALL
    }

    /** Longest detail kept; longer ones are cut. */
    public static final int MAX_DETAIL_LENGTH = 200;

    private final Kind kind;
    private final String detail;
    private final Instant markedAt;

    public EffectMark(Kind kind, String detail, Instant markedAt) {
        this.kind = Objects.requireNonNull(kind, "kind");
        this.detail = detail == null ? "" : detail;
        this.markedAt = markedAt;
    }

    /** A detail fit for the table: never null, at most {@link #MAX_DETAIL_LENGTH} characters. */
    public static String fit(String detail) {
        if (detail == null) return "";
        return detail.length() <= MAX_DETAIL_LENGTH ? detail : detail.substring(0, MAX_DETAIL_LENGTH - 1) + "…";
    }

    public Kind kind() { return kind; }
    /** What was about to happen or happened, for an operator ("commit", "HTTP POST https://psp.example/charges"). */
    public String detail() { return detail; }
    /** When the mark was written, by the database's clock (for a commit: just before it). */
    public Instant markedAt() { return markedAt; }

    @Override
    public String toString() { return kind + " at " + markedAt + (detail.isEmpty() ? "" : ": " + detail); }
}
