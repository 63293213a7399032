package dev.idempotency.agent.core.telemetry;

import java.util.Arrays;
import java.util.Collections;
import java.util.List;

/** One endpoint's figures at one moment, as {@link EndpointInventory#rows()} lists them. Times in milliseconds since the epoch, 0 when never. */
public final class EndpointRow {
    /** The columns of {@link #tsv()}. */
    public static final List<String> COLUMNS = Collections.unmodifiableList(Arrays.asList("application",
            "method", "endpoint", "kind", "required", "keyed", "unkeyed", "replayed", "conflicts", "mismatches",
            "key_missing", "first_seen", "last_seen"));

    public final String application;
    public final String method;
    public final String endpoint;
    public final String kind;
    public final String required;
    public final long keyed;
    public final long unkeyed;
    public final long replayed;
    public final long conflicts;
    public final long mismatches;
    public final long keyMissing;
    public final long firstSeen;
    public final long lastSeen;

    EndpointRow(EndpointInventory.Endpoint e) {
        application = e.application;
        method = e.method;
        endpoint = e.label;
        kind = e.kind;
        required = e.required;
        keyed = e.keyed.sum();
        unkeyed = e.unkeyed.sum();
        replayed = e.replayed.sum();
        conflicts = e.conflicts.sum();
        mismatches = e.mismatches.sum();
        keyMissing = e.keyMissing.sum();
        firstSeen = e.firstSeen;
        lastSeen = Math.max(e.lastSeen, e.firstSeen);
    }

    /** A mapping or declared route that no handled request has reached yet. */
    EndpointRow(String application, String method, String endpoint, String kind, String required) {
        this.application = application;
        this.method = method;
        this.endpoint = endpoint;
        this.kind = kind;
        this.required = required;
        keyed = unkeyed = replayed = conflicts = mismatches = keyMissing = firstSeen = lastSeen = 0;
    }

    /** Tab-separated, in {@link #COLUMNS} order: what the MBean publishes and the operator's tool reads. */
    public String tsv() {
        return String.join("\t", clean(application), method, clean(endpoint), kind, required,
                Long.toString(keyed), Long.toString(unkeyed), Long.toString(replayed), Long.toString(conflicts),
                Long.toString(mismatches), Long.toString(keyMissing), Long.toString(firstSeen),
                Long.toString(lastSeen));
    }

    private static String clean(String label) {
        return label.replace('\t', ' ').replace('\n', ' ').replace('\r', ' ');
    }
}
