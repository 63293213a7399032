package dev.idempotency.agent.core.telemetry;

import java.util.Locale;

/** What the agent did with one keyed request, decided once per request. */
public enum Outcome {
    /** The application ran under a reservation. */
    EXECUTED,
    /** The stored response was replayed. */
    REPLAYED,
    /** 409: a request with the key is running. */
    IN_FLIGHT,
    /** 422: the key was used for another request. */
    MISMATCH,
    /** 409: an earlier request's outcome is unknown. */
    UNKNOWN,
    /** 409: the earlier response was too large to keep. */
    NOT_KEPT,
    /** 503: the store could not be reached (fail closed). */
    STORE_UNAVAILABLE,
    /** The store could not be reached and failure-mode=open ran the application unprotected. */
    UNPROTECTED,
    /** 400: a key that is malformed, or missing where required. */
    BAD_KEY,
    /** 413: the body is larger than the agent keeps. */
    TOO_LARGE,
    /** 400: the body could not be read (charset, multipart, I/O). */
    UNREADABLE,
    /** 503: the agent failed itself and refused the request. */
    AGENT_FAULT,
    /** 503: the agent's memory budget for bodies was full; nothing was read or reserved. */
    OVER_BUDGET;

    /** The Prometheus label value and the JMX attribute stem. */
    public String label() {
        return name().toLowerCase(Locale.ROOT);
    }
}
