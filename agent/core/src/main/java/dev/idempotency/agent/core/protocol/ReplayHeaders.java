package dev.idempotency.agent.core.protocol;

import java.util.Arrays;
import java.util.HashSet;
import java.util.Locale;
import java.util.Set;

/** Which response headers are kept for replay: not hop-by-hop ones, not Date, not Content-Length (regenerated). */
public final class ReplayHeaders {
    public static final String REPLAYED = "Idempotent-Replayed";
    /** Marks a record whose response was too large to keep; its retries get a problem. */
    public static final String NOT_KEPT_MARKER = "X-Idempotency-Agent-Not-Kept";

    private static final Set<String> DROPPED = new HashSet<>(Arrays.asList("connection", "keep-alive", "proxy-authenticate",
            "proxy-authorization", "te", "trailer", "transfer-encoding", "upgrade", "date", "content-length", REPLAYED.toLowerCase(Locale.ROOT)));

    private ReplayHeaders() {
    }

    /** A cookie, as a header or as one the application added that the container writes only at commit. */
    public static boolean setsCookie(String name) {
        return name.equalsIgnoreCase("Set-Cookie") || name.equalsIgnoreCase("Set-Cookie2")
                || name.equalsIgnoreCase(dev.idempotency.agent.bootstrap.bridge.ServletAccessor.ADDED_COOKIE);
    }

    public static boolean kept(String name) {
        return !DROPPED.contains(name.toLowerCase(Locale.ROOT));
    }
}
