package dev.idempotency.agent.core.config;

import dev.idempotency.agent.core.log.AgentLog;
import dev.idempotency.agent.core.protocol.PathPatterns;
import dev.idempotency.agent.core.protocol.RequiredEndpoints;
import dev.idempotency.agent.core.protocol.TenantMode;
import dev.idempotency.store.ExpiredLeasePolicy;
import dev.idempotency.store.SchemaMode;
import dev.idempotency.store.StoreConfigurationException;
import dev.idempotency.store.StoreSettings;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.function.Function;

/** Every setting of the agent, read once at start-up and validated; a bad value names itself and what is accepted. */
public final class AgentConfig {

    public enum FailureMode { CLOSED, OPEN }

    /** Every setting the agent knows, with its default (null: unset), as the README documents them. */
    public static final Map<String, String> DEFAULTS;

    static {
        Map<String, String> d = new LinkedHashMap<>();
        d.put("idempotency.enabled", "true");
        d.put("idempotency.methods", "POST,PATCH");
        d.put("idempotency.include", "/**");
        d.put("idempotency.exclude", "");
        d.put("idempotency.required", "");
        d.put("idempotency.header", "Idempotency-Key");
        d.put("idempotency.key.max-length", "255");
        d.put("idempotency.tenant", "auto");
        d.put("idempotency.max-request-bytes", "1MiB");
        d.put("idempotency.max-response-bytes", "1MiB");
        d.put("idempotency.store-server-errors", "false");
        d.put("idempotency.failure-mode", "closed");
        d.put("idempotency.lease", "30s");
        d.put("idempotency.on-expired-lease", "reconcile");
        d.put("idempotency.ttl", "24h");
        d.put("idempotency.sweep-interval", "1m");
        d.put("idempotency.store.url", null);
        d.put("idempotency.store.user", null);
        d.put("idempotency.store.password", null);
        d.put("idempotency.store.table", "idempotency_keys");
        d.put("idempotency.store.schema", "create");
        d.put("idempotency.store.pool-size", "10");
        d.put("idempotency.store.connect-timeout", "2s");
        d.put("idempotency.store.query-timeout", "5s");
        d.put("idempotency.log.level", "info");
        d.put(ConfigSource.CONFIG_FILE, null);
        DEFAULTS = Collections.unmodifiableMap(d);
    }

    private final ConfigSource source;
    private final List<String> errors = new ArrayList<>();

    public final boolean enabled;
    public final Set<String> methods;
    public final PathPatterns include;
    public final PathPatterns exclude;
    public final RequiredEndpoints required;
    public final String header;
    public final int keyMaxLength;
    public final TenantMode tenant;
    public final long maxRequestBytes;
    public final long maxResponseBytes;
    public final boolean storeServerErrors;
    public final FailureMode failureMode;
    public final Duration sweepInterval;
    public final AgentLog.Level logLevel;
    public final StoreSettings store;

    private AgentConfig(ConfigSource source) {
        this.source = source;
        enabled = read("idempotency.enabled", ValueParsers::bool, "true or false");
        methods = read("idempotency.methods", AgentConfig::methods, "a comma-separated list of HTTP methods, e.g. POST,PATCH");
        include = read("idempotency.include", PathPatterns::parse, "comma-separated path patterns starting with / (* one segment, ** any)");
        exclude = read("idempotency.exclude", PathPatterns::parse, "comma-separated path patterns starting with / (* one segment, ** any)");
        required = read("idempotency.required", RequiredEndpoints::parse,
                "comma-separated path patterns starting with / and JAX-RS routes such as 'POST /orders/{id}/payments'");
        header = read("idempotency.header", v -> v.matches("[A-Za-z0-9!#$%&'*+.^_`|~-]+") ? v : null, "an HTTP header name");
        keyMaxLength = read("idempotency.key.max-length", v -> intIn(v, 1, 255), "a number from 1 to 255");
        tenant = read("idempotency.tenant", TenantMode::parse, "auto, principal, header:NAME or none");
        maxRequestBytes = read("idempotency.max-request-bytes", v -> sizeIn(v, 1, Integer.MAX_VALUE - 16), ValueParsers.SIZE_FORMAT + ", at most 2GiB");
        maxResponseBytes = read("idempotency.max-response-bytes", v -> sizeIn(v, 0, Integer.MAX_VALUE - 16), ValueParsers.SIZE_FORMAT + ", at most 2GiB");
        storeServerErrors = read("idempotency.store-server-errors", ValueParsers::bool, "true or false");
        failureMode = read("idempotency.failure-mode", v -> enumValue(FailureMode.class, v), "closed or open");
        Duration lease = read("idempotency.lease", v -> durationAtLeast(v, Duration.ofSeconds(1)), ValueParsers.DURATION_FORMAT + ", at least 1s");
        ExpiredLeasePolicy onExpired = read("idempotency.on-expired-lease", v -> enumValue(ExpiredLeasePolicy.class, v), "reconcile or retry");
        Duration ttl = read("idempotency.ttl", v -> durationAtLeast(v, Duration.ofSeconds(1)), ValueParsers.DURATION_FORMAT + ", at least 1s");
        sweepInterval = read("idempotency.sweep-interval", v -> durationAtLeast(v, Duration.ofSeconds(1)), ValueParsers.DURATION_FORMAT + ", at least 1s");
        logLevel = read("idempotency.log.level", v -> enumValue(AgentLog.Level.class, v), "error, warn, info or debug");
        String url = read("idempotency.store.url", v -> v, "a JDBC URL");
        String user = read("idempotency.store.user", v -> v, "a user name");
        String password = read("idempotency.store.password", v -> v, "a password");
        String table = read("idempotency.store.table", v -> v, "a table name");
        SchemaMode schema = read("idempotency.store.schema", v -> enumValue(SchemaMode.class, v), "create, validate or none");
        Integer poolSize = read("idempotency.store.pool-size", v -> intIn(v, 1, 500), "a number from 1 to 500");
        Duration connectTimeout = read("idempotency.store.connect-timeout", v -> durationAtLeast(v, Duration.ofMillis(250)), ValueParsers.DURATION_FORMAT + ", at least 250ms");
        Duration queryTimeout = read("idempotency.store.query-timeout", v -> durationAtLeast(v, Duration.ofSeconds(1)), ValueParsers.DURATION_FORMAT + ", at least 1s");
        if (lease != null && sweepInterval != null && ttl != null && ttl.compareTo(lease) < 0) {
            errors.add("setting 'idempotency.ttl' (" + ttl + ") is shorter than 'idempotency.lease' (" + lease + "); keys must outlive their leases");
        }
        StoreSettings built = null;
        if (errors.isEmpty()) {
            try {
                built = StoreSettings.builder().url(url).user(user).password(password).table(table).schemaMode(schema)
                        .poolSize(poolSize).connectTimeout(connectTimeout).queryTimeout(queryTimeout).lease(lease).ttl(ttl)
                        .expiredLeasePolicy(onExpired).build();
                dev.idempotency.store.jdbc.dialect.Dialect.forUrl(built.url());
            } catch (StoreConfigurationException e) {
                errors.add(e.getMessage().replace("store setting '", "setting 'idempotency.store."));
            }
        }
        store = built;
        if (!errors.isEmpty()) throw new ConfigException(String.join("; ", errors));
    }

    public static AgentConfig load(ConfigSource source) {
        return new AgentConfig(source);
    }

    /** Settings that look like ours but are not known (typos). */
    public Set<String> unknownSettings() {
        return source.unknownNames(DEFAULTS.keySet());
    }

    private <T> T read(String name, Function<String, T> parse, String accepted) {
        String value = source.get(name);
        boolean explicit = value != null;
        if (!explicit) value = DEFAULTS.get(name);
        if (value == null) return null;
        T parsed;
        try {
            parsed = parse.apply(value);
        } catch (RuntimeException e) {
            parsed = null;
        }
        if (parsed == null) {
            String shown = name.endsWith("password") ? "***" : value;
            errors.add("setting '" + name + "' is '" + shown + "'" + (explicit ? " (from " + source.origin(name) + ")" : "")
                    + "; expected " + accepted);
        }
        return parsed;
    }

    private static Set<String> methods(String value) {
        Set<String> methods = new LinkedHashSet<>();
        for (String m : value.split(",")) {
            String method = m.trim().toUpperCase(Locale.ROOT);
            if (method.isEmpty()) continue;
            if (!method.matches("[A-Z]+")) return null;
            methods.add(method);
        }
        return methods.isEmpty() ? null : Collections.unmodifiableSet(methods);
    }

    private static Integer intIn(String value, int min, int max) {
        int n = Integer.parseInt(value.trim());
        return n >= min && n <= max ? n : null;
    }

    private static Long sizeIn(String value, long min, long max) {
        Long n = ValueParsers.size(value);
        return n != null && n >= min && n <= max ? n : null;
    }

    private static Duration durationAtLeast(String value, Duration min) {
        Duration d = ValueParsers.duration(value);
        return d != null && d.compareTo(min) >= 0 ? d : null;
    }

    private static <E extends Enum<E>> E enumValue(Class<E> type, String value) {
        String wanted = value.trim().replace('-', '_').toUpperCase(Locale.ROOT);
        for (E e : type.getEnumConstants()) if (e.name().equals(wanted)) return e;
        return null;
    }

    /** The one start-up line: which store, which requests, which policies. */
    public String summary() {
        return "store " + store.redactedUrl() + " (table " + store.table() + ", schema " + lower(store.schemaMode()) + ")"
                + "; methods " + String.join(",", methods) + " with header " + header + " on " + include
                + (exclude.isEmpty() ? "" : " except " + exclude) + (required.isEmpty() ? "" : "; key required on " + required)
                + "; tenant " + tenant + "; lease " + store.lease().getSeconds() + "s, on expired lease " + lower(store.expiredLeasePolicy())
                + ", ttl " + store.ttl().toHours() + "h; failure mode " + lower(failureMode)
                + "; keep 5xx " + storeServerErrors;
    }

    private static String lower(Enum<?> e) {
        return e.name().toLowerCase(Locale.ROOT);
    }
}
