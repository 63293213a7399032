package dev.idempotency.agent.core.config;

import java.time.Duration;
import java.util.Locale;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/** The value formats settings accept: durations ({@code 500ms 30s 5m 24h 7d}), sizes ({@code 1MiB}), booleans. */
public final class ValueParsers {
    private static final Pattern DURATION = Pattern.compile("(\\d+)\\s*(ms|s|m|h|d)");
    private static final Pattern SIZE = Pattern.compile("(\\d+)\\s*(b|kb|kib|mb|mib|gb|gib)?");

    private ValueParsers() {
    }

    public static final String DURATION_FORMAT = "a duration such as 500ms, 30s, 5m, 24h or 7d";
    static final String SIZE_FORMAT = "a size in bytes such as 65536, 512KiB or 1MiB";

    public static final String PARTITION_FORMAT = "none, daily, hourly, or a duration from 1s to 1d that divides a day, such as 6h";

    /** A time partition width: empty for none; null when the value is not one. */
    public static java.util.Optional<Duration> partitionWidth(String value) {
        String v = value.trim().toLowerCase(Locale.ROOT);
        if (v.equals("none") || v.isEmpty()) return java.util.Optional.empty();
        if (v.equals("daily")) return java.util.Optional.of(Duration.ofDays(1));
        if (v.equals("hourly")) return java.util.Optional.of(Duration.ofHours(1));
        Duration d = duration(v);
        return d != null && dev.idempotency.store.StoreSettings.isPartitionWidth(d) ? java.util.Optional.of(d) : null;
    }

    public static Duration duration(String value) {
        Matcher m = DURATION.matcher(value.trim().toLowerCase(Locale.ROOT));
        Long n = m.matches() ? number(m.group(1)) : null;
        if (n == null) return null;
        switch (m.group(2)) {
            case "ms": return Duration.ofMillis(n);
            case "s": return Duration.ofSeconds(n);
            case "m": return Duration.ofMinutes(n);
            case "h": return Duration.ofHours(n);
            default: return Duration.ofDays(n);
        }
    }

    static Long size(String value) {
        Matcher m = SIZE.matcher(value.trim().toLowerCase(Locale.ROOT));
        Long n = m.matches() ? number(m.group(1)) : null;
        if (n == null) return null;
        String unit = m.group(2) == null ? "b" : m.group(2);
        switch (unit) {
            case "b": return n;
            case "kb": return n * 1000;
            case "kib": return n * 1024;
            case "mb": return n * 1000 * 1000;
            case "mib": return n * 1024 * 1024;
            case "gb": return n * 1000 * 1000 * 1000;
            default: return n * 1024 * 1024 * 1024;
        }
    }

    private static Long number(String digits) {
        try {
            return Long.parseLong(digits);
        } catch (NumberFormatException tooLarge) {
            return null;
        }
    }

    static Boolean bool(String value) {
        String v = value.trim().toLowerCase(Locale.ROOT);
        if (v.equals("true")) return Boolean.TRUE;
        if (v.equals("false")) return Boolean.FALSE;
        return null;
    }
}
