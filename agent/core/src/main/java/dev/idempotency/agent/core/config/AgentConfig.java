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
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;

/** Every setting of the agent, read once at start-up and validated; a bad value names itself and what is accepted. */
public final class AgentConfig {

    public enum FailureMode { CLOSED, OPEN }

    /** Every setting the agent knows, with its default (null: unset). */
    public static final Map<String, String> DEFAULTS;

    static {
        Map<String, String> d = new LinkedHashMap<>();
        for (Setting<?> s : Settings.ALL) d.put(s.name(), s.defaultValue());
        DEFAULTS = Collections.unmodifiableMap(d);
    }

    private final ConfigSource source;
    private final List<String> errors = new ArrayList<>();

    public final boolean enabled;
    public final HttpMethods methods;
    public final PathPatterns include;
    public final PathPatterns exclude;
    public final RequiredEndpoints required;
    /** The endpoint inventory's cap, in all and per application (a tenth, at least 1). */
    public final int endpointsMax;
    public final int endpointsMaxPerApplication;
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
        enabled = read(Settings.ENABLED);
        methods = read(Settings.METHODS);
        include = read(Settings.INCLUDE);
        exclude = read(Settings.EXCLUDE);
        required = read(Settings.REQUIRED);
        Integer maxEndpoints = read(Settings.ENDPOINTS_MAX);
        endpointsMax = maxEndpoints == null ? 1000 : maxEndpoints;
        endpointsMaxPerApplication = Math.max(1, endpointsMax / 10);
        header = read(Settings.HEADER);
        keyMaxLength = read(Settings.KEY_MAX_LENGTH);
        tenant = read(Settings.TENANT);
        credentialHeaders = read(Settings.TENANT_CREDENTIAL_HEADERS);
        credentialCookies = read(Settings.TENANT_CREDENTIAL_COOKIES);
        applicationFilters = read(Settings.APPLICATION_FILTERS);
        retryStatuses = read(Settings.RETRY_STATUSES);
        abandonedWorkGrace = read(Settings.ABANDONED_WORK_GRACE);
        maxRequestBytes = read(Settings.MAX_REQUEST_BYTES);
        maxResponseBytes = read(Settings.MAX_RESPONSE_BYTES);
        Long budget = read(Settings.MEMORY_BUDGET);
        long floor = 2 * maxRequestBytes; // half the budget admits request bodies
        if (budget != null && budget < floor && source.get("idempotency.memory-budget") != null) {
            errors.add("setting 'idempotency.memory-budget' (" + budget + " bytes) is less than twice 'idempotency.max-request-bytes' ("
                    + maxRequestBytes + " bytes): half the budget must hold the largest request body");
        }
        memoryBudgetBytes = budget == null ? 0 : Math.max(budget, floor);
        memoryWait = read(Settings.MEMORY_WAIT);
        inFlightWait = read(Settings.ON_IN_FLIGHT);
        storeServerErrors = read(Settings.STORE_SERVER_ERRORS);
        failureMode = read(Settings.FAILURE_MODE);
        Duration lease = read(Settings.LEASE);
        ExpiredLeasePolicy onExpired = read(Settings.ON_EXPIRED_LEASE);
        ExpiredLeasePolicy recovery = read(Settings.RECOVERY);
        if (recovery != null) {
            if (source.get("idempotency.on-expired-lease") != null && onExpired != null && onExpired != recovery) {
                errors.add("settings 'idempotency.recovery' (" + lower(recovery) + ") and 'idempotency.on-expired-lease' ("
                        + lower(onExpired) + ") are the same setting and disagree; set one of them");
            }
            onExpired = recovery;
        }
        Duration ttl = read(Settings.TTL);
        Duration unknownRetention = read(Settings.UNKNOWN_RETENTION);
        outboundHosts = read(Settings.OUTBOUND_HOSTS);
        outboundMethods = read(Settings.OUTBOUND_METHODS);
        outboundReplaceKeys = read(Settings.OUTBOUND_REPLACE_KEYS);
        if (outboundReplaceKeys != null && !outboundReplaceKeys.isEmpty() && outboundHosts != null && outboundHosts.isEmpty()) {
            errors.add("setting 'idempotency.outbound.replace-keys' (" + outboundReplaceKeys + ") needs the hosts listed in"
                    + " 'idempotency.outbound.hosts' too, which is empty");
        }
        sweepInterval = read(Settings.SWEEP_INTERVAL);
        logLevel = read(Settings.LOG_LEVEL);
        Boolean jmxEnabled = read(Settings.JMX);
        jmx = jmxEnabled == null || jmxEnabled;
        Integer port = read(Settings.METRICS_PORT);
        metricsPort = port == null ? 0 : port;
        metricsHost = read(Settings.METRICS_HOST);
        String url = read(Settings.STORE_URL);
        String user = read(Settings.STORE_USER);
        String password = read(Settings.STORE_PASSWORD);
        String table = read(Settings.STORE_TABLE);
        SchemaMode schema = read(Settings.STORE_SCHEMA);
        Integer poolSize = read(Settings.STORE_POOL_SIZE);
        Duration connectTimeout = read(Settings.STORE_CONNECT_TIMEOUT);
        Duration queryTimeout = read(Settings.STORE_QUERY_TIMEOUT);
        Boolean groupCommit = read(Settings.STORE_GROUP_COMMIT);
        Integer replicaAcks = read(Settings.STORE_REPLICA_ACKS);
        java.util.Optional<Duration> partitioning = read(Settings.STORE_PARTITIONING);
        String driverPath = read(Settings.STORE_DRIVER_PATH);
        if (lease != null && sweepInterval != null && ttl != null && ttl.compareTo(lease) < 0) {
            errors.add("setting 'idempotency.ttl' (" + ttl + ") is shorter than 'idempotency.lease' (" + lease + "); keys must outlive their leases");
        }
        StoreSettings built = null;
        if (errors.isEmpty()) {
            try {
                built = StoreSettings.builder().url(embeddedStaysOpenAtExit(url)).user(user).password(password).table(table).schemaMode(schema)
                        .poolSize(poolSize).connectTimeout(connectTimeout).queryTimeout(queryTimeout).lease(lease).ttl(ttl)
                        .expiredLeasePolicy(onExpired).unknownRetention(unknownRetention).groupCommit(groupCommit)
                        .partitioning(partitioning == null ? null : partitioning.orElse(null)).driverPath(driverPath)
                        .replicaAcks(replicaAcks == null ? 0 : replicaAcks).build();
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

    private <T> T read(Setting<T> setting) {
        String name = setting.name();
        String value = source.get(name);
        boolean explicit = value != null;
        if (!explicit) value = setting.defaultValue();
        if (value == null) return null;
        T parsed = setting.parse(value);
        if (parsed == null) {
            String shown = setting.secret() ? "***" : value;
            errors.add("setting '" + name + "' is '" + shown + "'" + (explicit ? " (from " + source.origin(name) + ")" : "")
                    + "; expected " + setting.accepted());
        }
        return parsed;
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

    /** The one start-up line: which store, which requests, which policies ({@link StartUpLine}). */
    public String summary() {
        // The URL as the operator gave it (or the default), not with what the agent appends for an embedded H2.
        String given = source.get(Settings.STORE_URL.name());
        String url = given == null || given.trim().isEmpty() ? StoreSettings.defaultH2Url() : given.trim();
        String shownUrl = StoreSettings.redacted(url);
        return StartUpLine.render(source, Collections.singletonMap(Settings.STORE_URL.name(), shownUrl));
    }

    private static String lower(Enum<?> e) {
        return e.name().toLowerCase(Locale.ROOT);
    }
}
