package dev.idempotency.agent.core.config;

import dev.idempotency.agent.core.log.AgentLog;
import dev.idempotency.agent.core.protocol.CredentialNames;
import dev.idempotency.agent.core.protocol.PathPatterns;
import dev.idempotency.agent.core.protocol.RequiredEndpoints;
import dev.idempotency.agent.core.protocol.TenantMode;
import dev.idempotency.store.ExpiredLeasePolicy;
import dev.idempotency.store.SchemaMode;
import dev.idempotency.store.StoreSettings;

import java.time.Duration;
import java.util.Arrays;
import java.util.Collections;
import java.util.List;
import java.util.Optional;
import java.util.Set;

/**
 * Every setting of the agent, declared once, in the order docs/configuration.md lists them (that page is generated
 * from here; {@code ConfigurationPageTest} fails when it is stale). {@link AgentConfig} reads them and checks the rules
 * that tie several together.
 */
public final class Settings {
    private Settings() {
    }

    public static final Setting<Boolean> ENABLED = Setting.<Boolean>named("idempotency.enabled").byDefault("true")
            .parsedBy(ValueParsers::bool)
            .accepting("true or false")
            .meaning("`false` installs nothing.");

    public static final Setting<HttpMethods> METHODS = Setting.<HttpMethods>named("idempotency.methods")
            .byDefault("POST,PATCH")
            .shownAtStartUp()
            .parsedBy(ValueParsers::methods)
            .accepting("a comma-separated list of HTTP methods, e.g. POST,PATCH")
            .meaning("HTTP methods the agent handles. Others (GET, PUT, DELETE…) run untouched.");

    public static final Setting<PathPatterns> INCLUDE = Setting.<PathPatterns>named("idempotency.include")
            .byDefault("/**")
            .shownAtStartUp()
            .parsedBy(PathPatterns::parse)
            .accepting("comma-separated path patterns starting with / (* one segment, ** any)")
            .meaning("Request paths handled: comma-separated patterns on the request URI, context path included (`*` "
                    + "one segment, `**` any; `/x/**` includes `/x`).");

    public static final Setting<PathPatterns> EXCLUDE = Setting.<PathPatterns>named("idempotency.exclude").byDefault("")
            .parsedBy(PathPatterns::parse)
            .accepting("comma-separated path patterns starting with / (* one segment, ** any)")
            .meaning("Paths never handled, even if included.");

    public static final Setting<RequiredEndpoints> REQUIRED = Setting.<RequiredEndpoints>named("idempotency.required")
            .byDefault("")
            .parsedBy(RequiredEndpoints::parse)
            .accepting("comma-separated path patterns starting with / and JAX-RS routes such as 'POST "
                    + "/orders/{id}/payments'")
            .meaning("Where a handled method without a key gets 400 `key-missing`: path patterns, and JAX-RS routes "
                    + "written as the resource method's HTTP method and path template relative to the application, "
                    + "e.g. `POST /orders/{id}/payments` (annotations on interfaces and superclasses count).");

    public static final Setting<Integer> ENDPOINTS_MAX = Setting.<Integer>named("idempotency.endpoints.max")
            .byDefault("1000")
            .parsedBy(v -> ValueParsers.intIn(v, 1, 100000))
            .accepting("a number from 1 to 100000")
            .meaning("Most endpoints the inventory keeps (application, method and servlet mapping or JAX-RS route; "
                    + "see [Operating it](operations.md#endpoint-inventory)); requests beyond count in one overflow "
                    + "bucket. A tenth of it, at least 1, per application.");

    public static final Setting<String> HEADER = Setting.<String>named("idempotency.header")
            .byDefault("Idempotency-Key")
            .shownAtStartUp()
            .parsedBy(v -> v.matches("[A-Za-z0-9!#$%&'*+.^_`|~-]+") ? v : null)
            .accepting("an HTTP header name")
            .meaning("The header carrying the key.");

    public static final Setting<Integer> KEY_MAX_LENGTH = Setting.<Integer>named("idempotency.key.max-length")
            .byDefault("255")
            .parsedBy(v -> ValueParsers.intIn(v, 1, 255))
            .accepting("a number from 1 to 255")
            .meaning("Longest key accepted (1 to 255).");

    public static final Setting<TenantMode> TENANT = Setting.<TenantMode>named("idempotency.tenant").byDefault("auto")
            .shownAtStartUp()
            .parsedBy(TenantMode::parse)
            .accepting("auto, principal, header:NAME or none")
            .meaning("Scope of a key: `auto` (the authenticated principal's name, from the container or the JAX-RS "
                    + "`SecurityContext`; else a keyed hash of every credential the request carries; only a request "
                    + "with none shares the anonymous scope), `principal`, `header:NAME`, or `none` (one global "
                    + "scope).");

    public static final Setting<CredentialNames> TENANT_CREDENTIAL_HEADERS =
            Setting.<CredentialNames>named("idempotency.tenant.credential-headers")
            .byDefault("X-API-Key,X-Auth-Token,X-Access-Token,Api-Key")
            .parsedBy(ValueParsers::exactNames)
            .accepting("a comma-separated list of header names")
            .meaning("Headers that carry credentials under `auto` (besides `Authorization`).");

    public static final Setting<CredentialNames> TENANT_CREDENTIAL_COOKIES =
            Setting.<CredentialNames>named("idempotency.tenant.credential-cookies")
            .byDefault("*sess*,*auth*,*token*,sid")
            .parsedBy(CredentialNames::parse)
            .accepting("a comma-separated list of cookie names, * matching any characters")
            .meaning("Cookies that carry credentials under `auto`, as case-insensitive patterns (`*` any characters): "
                    + "`JSESSIONID`, `SESSION`, `LEGACY_SESSION`, `auth_token`…");

    public static final Setting<List<String>> APPLICATION_FILTERS =
            Setting.<List<String>>named("idempotency.application-filters")
            .byDefault("")
            .parsedBy(ValueParsers::classNames)
            .accepting("a comma-separated list of fully qualified class names")
            .meaning("Filters (class names, subclasses included) that are the application rather than a step before "
                    + "it: a keyed request is decided on entry to them, as on entry to a servlet. Struts 2, Wicket, "
                    + "Tapestry 5, Jersey and RESTEasy filters are built in.");

    public static final Setting<Set<Integer>> RETRY_STATUSES = Setting.<Set<Integer>>named("idempotency.retry-statuses")
            .byDefault("408,425,429")
            .shownAtStartUp()
            .parsedBy(ValueParsers::statuses)
            .accepting("a comma-separated list of 4xx statuses, e.g. 408,425,429")
            .meaning("4xx answers that mean \"try again later\": never kept; they release the key, so a retry runs "
                    + "again.");

    public static final Setting<Duration> ABANDONED_WORK_GRACE =
            Setting.<Duration>named("idempotency.abandoned-work-grace")
            .byDefault("10m")
            .parsedBy(v -> ValueParsers.durationIn(v, Duration.ofSeconds(1), Duration.ofDays(1)))
            .accepting(ValueParsers.DURATION_FORMAT + ", from 1s to 1d")
            .meaning("How long the key of an asynchronous request whose container gave up (timeout, error) stays owned "
                    + "while its work may still run (1s to 1d); a late result within it is recorded, after it the "
                    + "expired-lease policy applies.");

    public static final Setting<Long> MAX_REQUEST_BYTES = Setting.<Long>named("idempotency.max-request-bytes")
            .byDefault("1MiB")
            .parsedBy(v -> ValueParsers.sizeIn(v, 1, Integer.MAX_VALUE - 16))
            .accepting(ValueParsers.SIZE_FORMAT + ", at most 2GiB")
            .meaning("Largest body of a keyed request (read into memory to fingerprint it); larger gets 413.");

    public static final Setting<Long> MAX_RESPONSE_BYTES = Setting.<Long>named("idempotency.max-response-bytes")
            .byDefault("1MiB")
            .parsedBy(v -> ValueParsers.sizeIn(v, 0, Integer.MAX_VALUE - 16))
            .accepting(ValueParsers.SIZE_FORMAT + ", at most 2GiB")
            .meaning("Largest response kept for replay; a larger one streams through and is not kept (see [What a "
                    + "client gets](protocol.md)).");

    public static final Setting<Long> MEMORY_BUDGET = Setting.<Long>named("idempotency.memory-budget").byDefault("10%")
            .parsedBy(ValueParsers::memoryBudget)
            .accepting(ValueParsers.SIZE_FORMAT + ", or a share of the maximum heap from 1% to 90% such as 10%")
            .meaning("Most bytes the agent holds at once for keyed requests (request bodies it took, responses it "
                    + "buffers until they are recorded), as a size (`64MiB`) or a share of the maximum heap (1% to "
                    + "90%); never less than twice `max-request-bytes`. A keyed body is admitted only while the bodies "
                    + "held leave half the budget free; otherwise it waits (see `memory-wait`) before a byte is read; "
                    + "a response the budget cannot hold streams through and is not kept (see [What a client "
                    + "gets](protocol.md)). So the agent is never the reason a JVM runs out of memory.");

    public static final Setting<Duration> MEMORY_WAIT = Setting.<Duration>named("idempotency.memory-wait")
            .byDefault("30s")
            .parsedBy(v -> ValueParsers.durationIn(v, Duration.ZERO, Duration.ofMinutes(1)))
            .accepting(ValueParsers.DURATION_FORMAT + ", from 0s to 1m")
            .meaning("How long a keyed request waits for room in the memory budget, first come first served, before "
                    + "its body is read (0s to 1m); then 503 `agent-busy`. It holds a container thread, never a "
                    + "database connection. A burst of large bodies is then served in turn rather than refused "
                    + "(measured: 200 concurrent 1 MiB echoes at the plain server's heap plus 32 MiB all succeed at "
                    + "the first try with 30 s; with 5 s, 44 were refused); lower it where clients time out sooner "
                    + "than they would wait.");

    public static final Setting<Duration> ON_IN_FLIGHT = Setting.<Duration>named("idempotency.on-in-flight")
            .byDefault("conflict")
            .parsedBy(ValueParsers::inFlightWait)
            .accepting("conflict, or wait:DURATION from 1ms to 1m (e.g. wait:5s)")
            .meaning("A duplicate that arrives while the first request with its key runs: `conflict` answers 409 "
                    + "`request-in-progress` at once; `wait:DURATION` (1ms to 1m, e.g. `wait:5s`) lets it wait that "
                    + "long for the first and then answers it as a retry would be (the replay; or, when the first gave "
                    + "its key up, a run of its own, one waiter at a time), and 409 as before when the first still "
                    + "runs. For proxies and SDKs that retry eagerly and do not understand 409. A waiter holds a "
                    + "container thread (and its captured body) for up to the wait, never a database connection: keep "
                    + "the wait short, and do not use it on a server with few request threads (the JDK's `HttpServer` "
                    + "has one); a first request in this JVM wakes its waiters as soon as its end is written, one on "
                    + "another node is looked for every 50 ms, doubling up to 500 ms; a store that fails a waiter's "
                    + "look answers it 409, never an unprotected run.");

    public static final Setting<Boolean> STORE_SERVER_ERRORS = Setting.<Boolean>named("idempotency.store-server-errors")
            .byDefault("false")
            .shownAtStartUp()
            .parsedBy(ValueParsers::bool)
            .accepting("true or false")
            .meaning("Keep and replay 5xx responses too. By default a 5xx or an exception releases the key and a retry "
                    + "runs again.");

    public static final Setting<AgentConfig.FailureMode> FAILURE_MODE =
            Setting.<AgentConfig.FailureMode>named("idempotency.failure-mode")
            .byDefault("closed")
            .shownAtStartUp()
            .parsedBy(v -> ValueParsers.enumValue(AgentConfig.FailureMode.class, v))
            .accepting("closed or open")
            .meaning("Store unreachable: `closed` answers 503 and does not run the application; `open` runs it "
                    + "unprotected and logs loudly.");

    public static final Setting<Duration> LEASE = Setting.<Duration>named("idempotency.lease").byDefault("30s")
            .shownAtStartUp()
            .parsedBy(v -> ValueParsers.durationIn(v, Duration.ofSeconds(1), StoreSettings.MAX_LEASE))
            .accepting(ValueParsers.DURATION_FORMAT + ", from 1s to 1h")
            .meaning("How long a running request owns its key without renewal (1s to 1h); a heartbeat renews it every "
                    + "third of a lease. A crashed JVM's keys expire within one lease.");

    public static final Setting<ExpiredLeasePolicy> ON_EXPIRED_LEASE =
            Setting.<ExpiredLeasePolicy>named("idempotency.on-expired-lease")
            .byDefault("reconcile")
            .shownAtStartUp()
            .parsedBy(v -> ValueParsers.enumValue(ExpiredLeasePolicy.class, v))
            .accepting("reconcile, retry or transaction")
            .meaning("A key whose owner stopped renewing: `reconcile` makes it *outcome unknown* (never re-run "
                    + "automatically); `retry` lets the next request with it run again; `transaction` lets the "
                    + "application's own transactions decide (see [After a "
                    + "crash](guarantees.md#after-a-crash-recoverytransaction)). Setting both names to different "
                    + "values is an error.");

    /** Another name of {@link #ON_EXPIRED_LEASE}: {@code recovery=transaction} reads naturally. */
    public static final Setting<ExpiredLeasePolicy> RECOVERY =
            Setting.aliasOf(ON_EXPIRED_LEASE, "idempotency.recovery");

    public static final Setting<Duration> TTL = Setting.<Duration>named("idempotency.ttl").byDefault("24h")
            .shownAtStartUp()
            .parsedBy(v -> ValueParsers.durationIn(v, Duration.ofSeconds(1), StoreSettings.MAX_TTL))
            .accepting(ValueParsers.DURATION_FORMAT + ", from 1s to 365d")
            .meaning("How long keys are kept after creation (1s to 365d).");

    public static final Setting<Duration> UNKNOWN_RETENTION = Setting.<Duration>named("idempotency.unknown-retention")
            .byDefault("30d")
            .shownAtStartUp()
            .parsedBy(v -> ValueParsers.durationIn(v, StoreSettings.MIN_UNKNOWN_RETENTION,
                    StoreSettings.MAX_UNKNOWN_RETENTION))
            .accepting(ValueParsers.DURATION_FORMAT + ", from 1h to 3650d")
            .meaning("How long a key whose outcome is unknown is kept for an operator (1h to 3650d), counted from the "
                    + "moment it became unknown; the start-up line says it.");

    public static final Setting<OutboundHosts> OUTBOUND_HOSTS =
            Setting.<OutboundHosts>named("idempotency.outbound.hosts")
            .byDefault("")
            .parsedBy(OutboundHosts::parse)
            .accepting("a comma-separated list of host names (*.example.com: its subdomains), each optionally "
                    + "=Header-Name, e.g." + " api.stripe.com,*.adyen.com,api.paypal.com=PayPal-Request-Id")
            .meaning("Hosts that honour an idempotency header: an unsafe call a keyed request makes to one carries a "
                    + "key derived from the request's own (see [Never twice "
                    + "downstream](guarantees.md#never-twice-downstream-derived-keys-on-outbound-calls)). "
                    + "Comma-separated host names or addresses, `*.example.com` for its subdomains (not example.com "
                    + "itself), each optionally `=Header-Name` (default `Idempotency-Key`), e.g. "
                    + "`api.stripe.com,*.adyen.com,api.paypal.com=PayPal-Request-Id`. No scheme, port or path. Nothing "
                    + "is sent to a host not listed.");

    public static final Setting<HttpMethods> OUTBOUND_METHODS =
            Setting.<HttpMethods>named("idempotency.outbound.methods")
            .byDefault("POST,PATCH")
            .parsedBy(ValueParsers::methods)
            .accepting("a comma-separated list of HTTP methods, e.g. POST,PATCH")
            .meaning("The methods of those calls that get a derived key.");

    public static final Setting<OutboundHosts> OUTBOUND_REPLACE_KEYS =
            Setting.<OutboundHosts>named("idempotency.outbound.replace-keys")
            .byDefault("")
            .parsedBy(v -> v.contains("=") ? null : OutboundHosts.parse(v))
            .accepting("a comma-separated list of host names (*.example.com: its subdomains) also listed in "
                    + "idempotency.outbound.hosts," + " whose clients make up a key per call, e.g. api.stripe.com")
            .meaning("Listed hosts whose client makes up a key for every call itself (stripe-java does, on every "
                    + "`POST`): their calls get the derived key in place of their own. Elsewhere a key the application "
                    + "set is left alone.");

    public static final Setting<Duration> SWEEP_INTERVAL = Setting.<Duration>named("idempotency.sweep-interval")
            .byDefault("1m")
            .parsedBy(v -> ValueParsers.durationAtLeast(v, Duration.ofSeconds(1)))
            .accepting(ValueParsers.DURATION_FORMAT + ", at least 1s")
            .meaning("How often expired leases are swept and expired keys purged.");

    public static final Setting<AgentLog.Level> LOG_LEVEL = Setting.<AgentLog.Level>named("idempotency.log.level")
            .byDefault("info")
            .parsedBy(v -> ValueParsers.enumValue(AgentLog.Level.class, v))
            .accepting("error, warn, info or debug")
            .meaning("`error`, `warn`, `info` or `debug` (debug logs every handled request's decision).");

    public static final Setting<Boolean> JMX = Setting.<Boolean>named("idempotency.jmx").byDefault("true")
            .parsedBy(ValueParsers::bool)
            .accepting("true or false")
            .meaning("Register the MBean `dev.idempotency:type=Agent` on the platform MBean server (see [Operating "
                    + "it](operations.md)).");

    public static final Setting<Integer> METRICS_PORT = Setting.<Integer>named("idempotency.metrics.port").byDefault("")
            .parsedBy(v -> v.isEmpty() ? Integer.valueOf(0) : ValueParsers.intIn(v, 1, 65535))
            .accepting("a TCP port from 1 to 65535 (empty: no endpoint)")
            .meaning("Serve the figures in the Prometheus text format at `http://HOST:PORT/metrics` (the JDK's own "
                    + "HTTP server; no endpoint when unset).");

    public static final Setting<String> METRICS_HOST = Setting.<String>named("idempotency.metrics.host")
            .byDefault("127.0.0.1")
            .parsedBy(v -> v.isEmpty() ? null : v)
            .accepting("a host name or address to bind the metrics endpoint to")
            .meaning("Address the metrics endpoint binds to; `0.0.0.0` exposes it beyond this machine.");

    public static final Setting<String> STORE_URL = Setting.<String>named("idempotency.store.url")
            .byDefault(null).shownAs("embedded H2")
            .shownAtStartUp()
            .parsedBy(v -> v)
            .accepting("a JDBC URL, or a redis://, rediss://, redis-sentinel://, rediss-sentinel://, "
                    + "redis-cluster:// or rediss-cluster:// URL")
            .meaning("JDBC URL (`jdbc:postgresql:`, `jdbc:mariadb:`, `jdbc:mysql:` or `jdbc:h2:`), or a "
                    + "standalone Redis server: `redis://[user:password@]host:port[/db]`, `rediss://` for TLS, or "
                    + "the master Redis Sentinel names: "
                    + "`redis-sentinel://[user:password@]host:26379[,host:26379...]/master-name[/db]`, or a Redis "
                    + "Cluster through any of its nodes: `redis-cluster://[user:password@]host:6379[,host:6379...]` "
                    + "(see [the store](store.md)).");

    public static final Setting<String> STORE_USER = Setting.<String>named("idempotency.store.user").byDefault(null)
            .parsedBy(v -> v)
            .accepting("a user name")
            .meaning("Database user.");

    public static final Setting<String> STORE_PASSWORD = Setting.<String>named("idempotency.store.password")
            .byDefault(null)
            .parsedBy(v -> v)
            .accepting("a password").secret()
            .meaning("Database password; never logged.");

    public static final Setting<String> STORE_TABLE = Setting.<String>named("idempotency.store.table")
            .byDefault("idempotency_keys")
            .shownAtStartUp()
            .parsedBy(v -> v)
            .accepting("a table name")
            .meaning("Table name (optionally schema-qualified).");

    public static final Setting<SchemaMode> STORE_SCHEMA = Setting.<SchemaMode>named("idempotency.store.schema")
            .byDefault("create")
            .shownAtStartUp()
            .parsedBy(v -> ValueParsers.enumValue(SchemaMode.class, v))
            .accepting("create, validate or none")
            .meaning("`create` the table when absent, `validate` it only, or `none`.");

    public static final Setting<Integer> STORE_POOL_SIZE = Setting.<Integer>named("idempotency.store.pool-size")
            .parsedBy(v -> ValueParsers.intIn(v, 1, 500))
            .accepting("a number from 1 to 500")
            .meaning("Connections in the store's request pool. Unset: " + StoreSettings.DATABASE_POOL_SIZE
                    + " for a database, " + StoreSettings.REDIS_POOL_SIZE + " for Redis (a Redis connection is cheap "
                    + "for the server, and requests waiting for a connection cost the agent CPU).");

    public static final Setting<Duration> STORE_CONNECT_TIMEOUT =
            Setting.<Duration>named("idempotency.store.connect-timeout")
            .byDefault("2s")
            .parsedBy(v -> ValueParsers.durationAtLeast(v, Duration.ofMillis(250)))
            .accepting(ValueParsers.DURATION_FORMAT + ", at least 250ms")
            .meaning("How long a request waits for the database before the store counts as unavailable. The store's "
                    + "first opening (at the first request the server serves) keeps trying for up to 60 s; a keyed "
                    + "request that arrives meanwhile waits for it up to 15 s, then gets 503.");

    public static final Setting<Duration> STORE_QUERY_TIMEOUT =
            Setting.<Duration>named("idempotency.store.query-timeout")
            .byDefault("5s")
            .parsedBy(v -> ValueParsers.durationAtLeast(v, Duration.ofSeconds(1)))
            .accepting(ValueParsers.DURATION_FORMAT + ", at least 1s")
            .meaning("How long one statement may take. Then the database cancels it (on PostgreSQL the driver's cancel "
                    + "request, sent by one watchdog thread of the store's that looks every 100 ms, instead of the "
                    + "driver's timer task per statement; `max_statement_time` on MariaDB, the session's "
                    + "`QUERY_TIMEOUT` on H2, unless the URL sets its own), which frees its server process, and the "
                    + "store counts as unavailable; the network gives up 2 s later, for a server that no longer "
                    + "answers at all.");

    public static final Setting<Boolean> STORE_GROUP_COMMIT = Setting.<Boolean>named("idempotency.store.group-commit")
            .byDefault("true")
            .parsedBy(ValueParsers::bool)
            .accepting("true or false")
            .meaning("While the store is busy, concurrent requests' reservations share one statement and one commit, "
                    + "and so do their completions (see [The store](store.md)); while it is not, each write runs at "
                    + "once on its own. `false`: each always runs its own statements.");

    public static final Setting<Optional<Duration>> STORE_PARTITIONING =
            Setting.<Optional<Duration>>named("idempotency.store.partitioning")
            .byDefault("none")
            .parsedBy(ValueParsers::partitionWidth)
            .accepting(ValueParsers.PARTITION_FORMAT)
            .meaning("PostgreSQL only: keep the key table in time partitions `daily`, `hourly` or of any width from 1s "
                    + "to 1d that divides a day (`6h`), and purge by dropping partitions whose keys all expired "
                    + "instead of deleting rows (see [Time partitions](store.md#time-partitions-postgresql)). Applies "
                    + "to a new table; every node must use the same width.");

    public static final Setting<Integer> STORE_REPLICA_ACKS = Setting.<Integer>named("idempotency.store.replica-acks")
            .byDefault("0")
            .parsedBy(v -> ValueParsers.intIn(v, 0, dev.idempotency.store.StoreSettings.MAX_REPLICA_ACKS))
            .accepting("a number from 0 to " + dev.idempotency.store.StoreSettings.MAX_REPLICA_ACKS)
            .meaning("Redis only: a reservation or a recorded response counts once this many replicas acknowledge it "
                    + "(`WAIT`, within three quarters of the query timeout); fewer, and the request is answered 503. "
                    + "`0`: the master's answer counts, and a failover may lose what its replicas had not copied (see "
                    + "[the store](store.md)).");

    public static final Setting<String> STORE_DRIVER_PATH = Setting.<String>named("idempotency.store.driver-path")
            .byDefault(null).shownAs("the bundled driver")
            .parsedBy(v -> v)
            .accepting(StoreSettings.DRIVER_PATH_FORMAT)
            .meaning("JDBC stores: load the JDBC driver from these jars instead of the one the agent bundles, "
                    + "in a class loader of its own that sees only the JDK: for example a MariaDB Connector/J of your "
                    + "choosing or your own build, which serves `jdbc:mariadb:` and `jdbc:mysql:` URLs (see "
                    + "[Licences](licences.md)). The driver class stays the one the URL names "
                    + "(`org.mariadb.jdbc.Driver`, `org.postgresql.Driver`, `org.h2.Driver`).");

    public static final Setting<String> CONFIG = Setting.<String>named(ConfigSource.CONFIG_FILE).byDefault(null)
            .parsedBy(v -> v)
            .accepting("a readable properties file")
            .meaning("A properties file with any of the settings above.");

    /** Every setting, in the order docs/configuration.md lists them (an alias right after its setting). */
    public static final List<Setting<?>> ALL = Collections.unmodifiableList(Arrays.<Setting<?>>asList(
            ENABLED, METHODS, INCLUDE, EXCLUDE, REQUIRED, ENDPOINTS_MAX,
            HEADER, KEY_MAX_LENGTH, TENANT, TENANT_CREDENTIAL_HEADERS,
            TENANT_CREDENTIAL_COOKIES, APPLICATION_FILTERS, MAX_REQUEST_BYTES, MAX_RESPONSE_BYTES, MEMORY_BUDGET,
            MEMORY_WAIT, ON_IN_FLIGHT, STORE_SERVER_ERRORS, RETRY_STATUSES, ABANDONED_WORK_GRACE, FAILURE_MODE, LEASE,
            ON_EXPIRED_LEASE, RECOVERY, OUTBOUND_HOSTS, OUTBOUND_METHODS, OUTBOUND_REPLACE_KEYS, TTL,
            UNKNOWN_RETENTION, SWEEP_INTERVAL, STORE_URL, STORE_USER, STORE_PASSWORD, STORE_TABLE, STORE_SCHEMA,
            STORE_POOL_SIZE, STORE_CONNECT_TIMEOUT, STORE_QUERY_TIMEOUT, STORE_PARTITIONING, STORE_GROUP_COMMIT,
            STORE_REPLICA_ACKS, STORE_DRIVER_PATH, LOG_LEVEL, JMX, METRICS_PORT, METRICS_HOST, CONFIG));

    /** The setting of that name, or null. */
    public static Setting<?> named(String name) {
        for (Setting<?> s : ALL) if (s.name().equals(name)) return s;
        return null;
    }
}
