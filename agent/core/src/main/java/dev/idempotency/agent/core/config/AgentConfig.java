package dev.idempotency.agent.core.config;

import dev.idempotency.agent.core.log.AgentLog;
import dev.idempotency.agent.core.protocol.CredentialNames;
import dev.idempotency.agent.core.protocol.PathPatterns;
import dev.idempotency.agent.core.protocol.RequiredEndpoints;
import dev.idempotency.agent.core.protocol.TenantMode;
import dev.idempotency.store.ExpiredLeasePolicy;
import dev.idempotency.store.SchemaMode;
import dev.idempotency.store.StoreConfigurationException;
import dev.idempotency.store.StoreSettings;
import dev.idempotency.store.families.StoreFamilies;

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

    /** Every setting the agent knows, with its default (null: unset), as docs/configuration.md documents them. */
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
        d.put("idempotency.tenant.credential-headers", "X-API-Key,X-Auth-Token,X-Access-Token,Api-Key");
        d.put("idempotency.tenant.credential-cookies", "*sess*,*auth*,*token*,sid");
        d.put("idempotency.application-filters", "");
        d.put("idempotency.max-request-bytes", "1MiB");
        d.put("idempotency.max-response-bytes", "1MiB");
        d.put("idempotency.memory-budget", "10%");
        d.put("idempotency.memory-wait", "30s");
        d.put("idempotency.on-in-flight", "conflict");
        d.put("idempotency.store-server-errors", "false");
        d.put("idempotency.retry-statuses", "408,425,429");
        d.put("idempotency.abandoned-work-grace", "10m");
        d.put("idempotency.failure-mode", "closed");
        d.put("idempotency.lease", "30s");
        d.put("idempotency.on-expired-lease", "reconcile");
        d.put("idempotency.recovery", null); // another name of on-expired-lease: recovery=transaction reads naturally
        d.put("idempotency.ttl", "24h");
        d.put("idempotency.unknown-retention", "30d");
        d.put("idempotency.outbound.hosts", "");
        d.put("idempotency.outbound.methods", "POST,PATCH");
        d.put("idempotency.outbound.replace-keys", "");
        d.put("idempotency.sweep-interval", "1m");
        d.put("idempotency.store.url", null);
        d.put("idempotency.store.user", null);
        d.put("idempotency.store.password", null);
        d.put("idempotency.store.table", "idempotency_keys");
        d.put("idempotency.store.schema", "create");
        d.put("idempotency.store.pool-size", "10");
        d.put("idempotency.store.connect-timeout", "2s");
        d.put("idempotency.store.query-timeout", "5s");
        d.put("idempotency.store.group-commit", "true");
        d.put("idempotency.store.partitioning", "none");
        d.put("idempotency.log.level", "info");
        d.put("idempotency.jmx", "true");
        d.put("idempotency.metrics.port", "");
        d.put("idempotency.metrics.host", "127.0.0.1");
        d.put(ConfigSource.CONFIG_FILE, null);
        DEFAULTS = Collections.unmodifiableMap(d);
    }

    private final ConfigSource source;
    private final List<String> errors = new ArrayList<>();

    public final boolean enabled;
    public final HttpMethods methods;
    public final PathPatterns include;
    public final PathPatterns exclude;
    public final RequiredEndpoints required;
    public final String header;
    public final int keyMaxLength;
    public final TenantMode tenant;
    public final CredentialNames credentialHeaders;
    public final CredentialNames credentialCookies;
    public final List<String> applicationFilters;
    public final Set<Integer> retryStatuses;
    public final Duration abandonedWorkGrace;
    public final long maxRequestBytes;
    public final long maxResponseBytes;
    /** Bytes of request bodies and buffered responses the agent may hold at once, across all keyed requests. */
    public final long memoryBudgetBytes;
    /** How long a keyed request waits for room in the memory budget, before its body is read, until it gets 503. */
    public final Duration memoryWait;
    /**
     * How long a request waits for the request that holds its key to end, then answered as a retry would be (replay,
     * or its own run when the key was given up); zero: 409 at once.
     */
    public final Duration inFlightWait;
    public final boolean storeServerErrors;
    public final FailureMode failureMode;
    public final Duration sweepInterval;
    public final AgentLog.Level logLevel;
    public final boolean jmx;
    /** 0: no metrics endpoint. */
    public final int metricsPort;
    public final String metricsHost;
    public final StoreSettings store;
    /** Hosts whose unsafe calls made by a keyed request carry a key derived from it; empty: none. */
    public final OutboundHosts outboundHosts;
    /** The methods of calls to those hosts that get a derived key. */
    public final HttpMethods outboundMethods;
    /** Hosts whose calls' own keys are replaced by derived ones: their client makes one up per call (stripe-java). */
    public final OutboundHosts outboundReplaceKeys;

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
        credentialHeaders = read("idempotency.tenant.credential-headers", AgentConfig::exactNames, "a comma-separated list of header names");
        credentialCookies = read("idempotency.tenant.credential-cookies", CredentialNames::parse,
                "a comma-separated list of cookie names, * matching any characters");
        applicationFilters = read("idempotency.application-filters", AgentConfig::classNames, "a comma-separated list of fully qualified class names");
        retryStatuses = read("idempotency.retry-statuses", AgentConfig::statuses, "a comma-separated list of 4xx statuses, e.g. 408,425,429");
        abandonedWorkGrace = read("idempotency.abandoned-work-grace", v -> durationIn(v, Duration.ofSeconds(1), Duration.ofDays(1)),
                ValueParsers.DURATION_FORMAT + ", from 1s to 1d");
        maxRequestBytes = read("idempotency.max-request-bytes", v -> sizeIn(v, 1, Integer.MAX_VALUE - 16), ValueParsers.SIZE_FORMAT + ", at most 2GiB");
        maxResponseBytes = read("idempotency.max-response-bytes", v -> sizeIn(v, 0, Integer.MAX_VALUE - 16), ValueParsers.SIZE_FORMAT + ", at most 2GiB");
        Long budget = read("idempotency.memory-budget", AgentConfig::memoryBudget,
                ValueParsers.SIZE_FORMAT + ", or a share of the maximum heap from 1% to 90% such as 10%");
        long floor = 2 * maxRequestBytes; // half the budget admits request bodies
        if (budget != null && budget < floor && source.get("idempotency.memory-budget") != null) {
            errors.add("setting 'idempotency.memory-budget' (" + budget + " bytes) is less than twice 'idempotency.max-request-bytes' ("
                    + maxRequestBytes + " bytes): half the budget must hold the largest request body");
        }
        memoryBudgetBytes = budget == null ? 0 : Math.max(budget, floor);
        memoryWait = read("idempotency.memory-wait", v -> durationIn(v, Duration.ZERO, Duration.ofMinutes(1)),
                ValueParsers.DURATION_FORMAT + ", from 0s to 1m");
        inFlightWait = read("idempotency.on-in-flight", AgentConfig::inFlightWait, "conflict, or wait:DURATION from 1ms to 1m (e.g. wait:5s)");
        storeServerErrors = read("idempotency.store-server-errors", ValueParsers::bool, "true or false");
        failureMode = read("idempotency.failure-mode", v -> enumValue(FailureMode.class, v), "closed or open");
        Duration lease = read("idempotency.lease", v -> durationIn(v, Duration.ofSeconds(1), StoreSettings.MAX_LEASE), ValueParsers.DURATION_FORMAT + ", from 1s to 1h");
        ExpiredLeasePolicy onExpired = read("idempotency.on-expired-lease", v -> enumValue(ExpiredLeasePolicy.class, v), "reconcile, retry or transaction");
        ExpiredLeasePolicy recovery = read("idempotency.recovery", v -> enumValue(ExpiredLeasePolicy.class, v), "reconcile, retry or transaction");
        if (recovery != null) {
            if (source.get("idempotency.on-expired-lease") != null && onExpired != null && onExpired != recovery) {
                errors.add("settings 'idempotency.recovery' (" + lower(recovery) + ") and 'idempotency.on-expired-lease' ("
                        + lower(onExpired) + ") are the same setting and disagree; set one of them");
            }
            onExpired = recovery;
        }
        Duration ttl = read("idempotency.ttl", v -> durationIn(v, Duration.ofSeconds(1), StoreSettings.MAX_TTL), ValueParsers.DURATION_FORMAT + ", from 1s to 365d");
        Duration unknownRetention = read("idempotency.unknown-retention", v -> durationIn(v, StoreSettings.MIN_UNKNOWN_RETENTION, StoreSettings.MAX_UNKNOWN_RETENTION),
                ValueParsers.DURATION_FORMAT + ", from 1h to 3650d");
        outboundHosts = read("idempotency.outbound.hosts", OutboundHosts::parse,
                "a comma-separated list of host names (*.example.com: its subdomains), each optionally =Header-Name, e.g."
                        + " api.stripe.com,*.adyen.com,api.paypal.com=PayPal-Request-Id");
        outboundMethods = read("idempotency.outbound.methods", AgentConfig::methods, "a comma-separated list of HTTP methods, e.g. POST,PATCH");
        outboundReplaceKeys = read("idempotency.outbound.replace-keys", v -> v.contains("=") ? null : OutboundHosts.parse(v),
                "a comma-separated list of host names (*.example.com: its subdomains) also listed in idempotency.outbound.hosts,"
                        + " whose clients make up a key per call, e.g. api.stripe.com");
        if (outboundReplaceKeys != null && !outboundReplaceKeys.isEmpty() && outboundHosts != null && outboundHosts.isEmpty()) {
            errors.add("setting 'idempotency.outbound.replace-keys' (" + outboundReplaceKeys + ") needs the hosts listed in"
                    + " 'idempotency.outbound.hosts' too, which is empty");
        }
        sweepInterval = read("idempotency.sweep-interval", v -> durationAtLeast(v, Duration.ofSeconds(1)), ValueParsers.DURATION_FORMAT + ", at least 1s");
        logLevel = read("idempotency.log.level", v -> enumValue(AgentLog.Level.class, v), "error, warn, info or debug");
        Boolean jmxEnabled = read("idempotency.jmx", ValueParsers::bool, "true or false");
        jmx = jmxEnabled == null || jmxEnabled;
        Integer port = read("idempotency.metrics.port", v -> v.isEmpty() ? Integer.valueOf(0) : intIn(v, 1, 65535), "a TCP port from 1 to 65535 (empty: no endpoint)");
        metricsPort = port == null ? 0 : port;
        metricsHost = read("idempotency.metrics.host", v -> v.isEmpty() ? null : v, "a host name or address to bind the metrics endpoint to");
        String url = read("idempotency.store.url", v -> v, "a JDBC URL");
        String user = read("idempotency.store.user", v -> v, "a user name");
        String password = read("idempotency.store.password", v -> v, "a password");
        String table = read("idempotency.store.table", v -> v, "a table name");
        SchemaMode schema = read("idempotency.store.schema", v -> enumValue(SchemaMode.class, v), "create, validate or none");
        Integer poolSize = read("idempotency.store.pool-size", v -> intIn(v, 1, 500), "a number from 1 to 500");
        Duration connectTimeout = read("idempotency.store.connect-timeout", v -> durationAtLeast(v, Duration.ofMillis(250)), ValueParsers.DURATION_FORMAT + ", at least 250ms");
        Duration queryTimeout = read("idempotency.store.query-timeout", v -> durationAtLeast(v, Duration.ofSeconds(1)), ValueParsers.DURATION_FORMAT + ", at least 1s");
        Boolean groupCommit = read("idempotency.store.group-commit", ValueParsers::bool, "true or false");
        java.util.Optional<Duration> partitioning = read("idempotency.store.partitioning", ValueParsers::partitionWidth,
                ValueParsers.PARTITION_FORMAT);
        if (lease != null && sweepInterval != null && ttl != null && ttl.compareTo(lease) < 0) {
            errors.add("setting 'idempotency.ttl' (" + ttl + ") is shorter than 'idempotency.lease' (" + lease + "); keys must outlive their leases");
        }
        StoreSettings built = null;
        if (errors.isEmpty()) {
            try {
                built = StoreSettings.builder().url(embeddedStaysOpenAtExit(url)).user(user).password(password).table(table).schemaMode(schema)
                        .poolSize(poolSize).connectTimeout(connectTimeout).queryTimeout(queryTimeout).lease(lease).ttl(ttl)
                        .expiredLeasePolicy(onExpired).unknownRetention(unknownRetention).groupCommit(groupCommit)
                        .partitioning(partitioning == null ? null : partitioning.orElse(null)).build();
                String refused = StoreFamilies.refusal(built);
                if (refused != null) errors.add(refused.replace("store setting '", "setting 'idempotency.store."));
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

    private static HttpMethods methods(String value) {
        Set<String> methods = new LinkedHashSet<>();
        for (String m : value.split(",")) {
            String method = m.trim().toUpperCase(Locale.ROOT);
            if (method.isEmpty()) continue;
            if (!method.matches("[A-Z]+")) return null;
            methods.add(method);
        }
        return methods.isEmpty() ? null : new HttpMethods(new ArrayList<>(methods));
    }

    private static Duration inFlightWait(String value) {
        String v = value.trim().toLowerCase(Locale.ROOT);
        if (v.equals("conflict")) return Duration.ZERO;
        if (!v.startsWith("wait:")) return null;
        return durationIn(v.substring("wait:".length()).trim(), Duration.ofMillis(1), Duration.ofMinutes(1));
    }

    private static Integer intIn(String value, int min, int max) {
        int n = Integer.parseInt(value.trim());
        return n >= min && n <= max ? n : null;
    }

    /** A size, or a percentage of the heap this JVM may grow to. */
    private static Long memoryBudget(String value) {
        String v = value.trim();
        if (!v.endsWith("%")) return sizeIn(v, 1, Long.MAX_VALUE / 4);
        Integer percent = intIn(v.substring(0, v.length() - 1).trim(), 1, 90);
        return percent == null ? null : Runtime.getRuntime().maxMemory() / 100 * percent;
    }

    private static Long sizeIn(String value, long min, long max) {
        Long n = ValueParsers.size(value);
        return n != null && n >= min && n <= max ? n : null;
    }

    /**
     * H2 closes an embedded database in its own shutdown hook, while the container may still be finishing requests in
     * its hook; the agent closes the store itself once they are done.
     */
    private static String embeddedStaysOpenAtExit(String url) {
        String effective = url == null || url.trim().isEmpty() ? StoreSettings.defaultH2Url() : url.trim();
        if (!effective.toLowerCase(Locale.ROOT).startsWith("jdbc:h2:") || effective.toUpperCase(Locale.ROOT).contains("DB_CLOSE_ON_EXIT")) return effective;
        return effective + ";DB_CLOSE_ON_EXIT=FALSE";
    }

    private static Duration durationIn(String value, Duration min, Duration max) {
        Duration d = ValueParsers.duration(value);
        return d != null && d.compareTo(min) >= 0 && d.compareTo(max) <= 0 ? d : null;
    }

    private static CredentialNames exactNames(String value) {
        CredentialNames names = CredentialNames.parse(value);
        return names == null || value.contains("*") ? null : names;
    }

    private static List<String> classNames(String value) {
        List<String> names = new ArrayList<>();
        for (String raw : value.split(",")) {
            String name = raw.trim();
            if (name.isEmpty()) continue;
            if (!name.matches("[\\p{L}_$][\\p{L}\\p{N}_$]*(\\.[\\p{L}_$][\\p{L}\\p{N}_$]*)*")) return null;
            names.add(name);
        }
        return Collections.unmodifiableList(names);
    }

    private static Set<Integer> statuses(String value) {
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
        return "store " + store.redactedUrl() + " (table " + store.table() + ", schema " + lower(store.schemaMode())
                + (store.partitioning() == null ? "" : ", partitions " + store.partitioning().getSeconds() + "s wide") + ")"
                + "; methods " + String.join(",", methods) + " with header " + header + " on " + include
                + (exclude.isEmpty() ? "" : " except " + exclude) + (required.isEmpty() ? "" : "; key required on " + required)
                + "; tenant " + tenant + (applicationFilters.isEmpty() ? "" : "; application filters " + String.join(",", applicationFilters))
                + "; retry statuses " + retryStatuses + "; lease " + store.lease().getSeconds() + "s, on expired lease " + lower(store.expiredLeasePolicy())
                + ", ttl " + store.ttl().toHours() + "h; unknown keys kept " + store.unknownRetention().toDays() + "d"
                + (inFlightWait.isZero() ? "" : "; on in-flight wait " + inFlightWait.toMillis() + "ms")
                + "; failure mode " + lower(failureMode)
                + "; keep 5xx " + storeServerErrors
                + (outboundHosts.isEmpty() ? "" : "; derived keys on " + String.join(",", outboundMethods) + " to " + outboundHosts
                        + (outboundReplaceKeys.isEmpty() ? "" : ", replacing the clients' own keys to " + outboundReplaceKeys))
                + (metricsPort > 0 ? "; metrics at http://" + metricsHost + ":" + metricsPort + "/metrics" : "");
    }

    private static String lower(Enum<?> e) {
        return e.name().toLowerCase(Locale.ROOT);
    }
}
