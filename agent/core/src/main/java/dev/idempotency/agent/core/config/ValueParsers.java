package dev.idempotency.agent.core.config;

import dev.idempotency.agent.core.protocol.CredentialNames;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
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

    static HttpMethods methods(String value) {
        Set<String> methods = new LinkedHashSet<>();
        for (String m : value.split(",")) {
            String method = m.trim().toUpperCase(Locale.ROOT);
            if (method.isEmpty()) continue;
            if (!method.matches("[A-Z]+")) return null;
            methods.add(method);
        }
        return methods.isEmpty() ? null : new HttpMethods(new ArrayList<>(methods));
    }

    static Duration inFlightWait(String value) {
        String v = value.trim().toLowerCase(Locale.ROOT);
        if (v.equals("conflict")) return Duration.ZERO;
        if (!v.startsWith("wait:")) return null;
        return durationIn(v.substring("wait:".length()).trim(), Duration.ofMillis(1), Duration.ofMinutes(1));
    }

    static Integer intIn(String value, int min, int max) {
        int n = Integer.parseInt(value.trim());
        return n >= min && n <= max ? n : null;
    }

    /** A size, or a percentage of the heap this JVM may grow to. */
    static Long memoryBudget(String value) {
        String v = value.trim();
        if (!v.endsWith("%")) return sizeIn(v, 1, Long.MAX_VALUE / 4);
        Integer percent = intIn(v.substring(0, v.length() - 1).trim(), 1, 90);
        return percent == null ? null : Runtime.getRuntime().maxMemory() / 100 * percent;
    }

    static Long sizeIn(String value, long min, long max) {
        Long n = ValueParsers.size(value);
        return n != null && n >= min && n <= max ? n : null;
    }

    static Duration durationIn(String value, Duration min, Duration max) {
        Duration d = ValueParsers.duration(value);
        return d != null && d.compareTo(min) >= 0 && d.compareTo(max) <= 0 ? d : null;
    }

    static CredentialNames exactNames(String value) {
        CredentialNames names = CredentialNames.parse(value);
        return names == null || value.contains("*") ? null : names;
    }

    static List<String> classNames(String value) {
        List<String> names = new ArrayList<>();
        for (String raw : value.split(",")) {
            String name = raw.trim();
            if (name.isEmpty()) continue;
            if (!name.matches("[\\p{L}_$][\\p{L}\\p{N}_$]*(\\.[\\p{L}_$][\\p{L}\\p{N}_$]*)*")) return null;
            names.add(name);
        }
        return Collections.unmodifiableList(names);
    }

    static Set<Integer> statuses(String value) {
        Set<Integer> statuses = new LinkedHashSet<>();
        for (String raw : value.split(",")) {
            String status = raw.trim();
            if (status.isEmpty()) continue;
            int n = Integer.parseInt(status);
            if (n < 400 || n > 499) return null;
            statuses.add(n);
        }
        return Collections.unmodifiableSet(statuses);
    }

    static Duration durationAtLeast(String value, Duration min) {
        Duration d = ValueParsers.duration(value);
        return d != null && d.compareTo(min) >= 0 ? d : null;
    }

    static <E extends Enum<E>> E enumValue(Class<E> type, String value) {
        String wanted = value.trim().replace('-', '_').toUpperCase(Locale.ROOT);
        for (E e : type.getEnumConstants()) if (e.name().equals(wanted)) return e;
        return null;
    }
}
