package dev.idempotency.store;

import java.io.File;
import java.time.Duration;
import java.util.Objects;
import java.util.regex.Pattern;

/**
 * Everything the store needs to know, as a plain immutable object. The agent fills it from its configuration;
 * {@link #toString()} never shows the password.
 */
public final class StoreSettings {

    /*
     * Upper bounds keep every timestamp the store computes (now + ttl, now + lease, now - retention) well inside the
     * range of every database's DATETIME/TIMESTAMP arithmetic. Without them a ttl of centuries overflowed MariaDB's
     * DATETIME into a zero date under INSERT IGNORE, and the key counted as expired at once.
     */
    public static final Duration MAX_TTL = Duration.ofDays(365);
    public static final int MAX_REPLICA_ACKS = 16;
    /** Connections of a database store's request pool unless set: each is a server session of its own. */
    public static final int DATABASE_POOL_SIZE = 10;
    /**
     * A Redis store's: a connection costs the server a few kilobytes, while requests queueing for ten connections cost
     * the agent CPU and latency (side by side at 128 concurrent requests, 32 gave 12 % more keyed requests per second
     * and half the p99; demo-apps/bench/MEASUREMENTS.md).
     */
    public static final int REDIS_POOL_SIZE = 32;
    public static final Duration MAX_LEASE = Duration.ofHours(1);
    public static final Duration MIN_UNKNOWN_RETENTION = Duration.ofHours(1);
    public static final Duration MAX_UNKNOWN_RETENTION = Duration.ofDays(3650);
    /** Most partitions one ttl may span (each statement by key opens them all). */
    public static final int MAX_PARTITIONS_PER_TTL = 100;

    private static final Pattern TABLE_NAME = Pattern.compile("[A-Za-z_][A-Za-z0-9_]{0,40}(\\.[A-Za-z_][A-Za-z0-9_]{0,40})?");

    private final String url;
    private final String user;
    private final String password;
    private final String table;
    private final SchemaMode schemaMode;
    private final int poolSize;
    private final Duration connectTimeout;
    private final Duration queryTimeout;
    private final Duration lease;
    private final Duration ttl;
    private final Duration unknownRetention;
    private final ExpiredLeasePolicy expiredLeasePolicy;
    private final int batchSize;
    private final boolean groupCommit;
    private final Duration partitioning;
    private final int replicaAcks;
    private final String driverPath;

    private StoreSettings(Builder b) {
        this.url = b.url == null || b.url.trim().isEmpty() ? defaultH2Url() : b.url.trim();
        this.user = b.user;
        this.password = b.password;
        this.table = b.table;
        this.schemaMode = Objects.requireNonNull(b.schemaMode, "schemaMode");
        this.poolSize = b.poolSize != null ? b.poolSize : isRedisUrl(url) ? REDIS_POOL_SIZE : DATABASE_POOL_SIZE;
        this.connectTimeout = b.connectTimeout;
        this.queryTimeout = b.queryTimeout;
        this.lease = b.lease;
        this.ttl = b.ttl;
        this.unknownRetention = b.unknownRetention;
        this.expiredLeasePolicy = Objects.requireNonNull(b.expiredLeasePolicy, "expiredLeasePolicy");
        this.batchSize = b.batchSize;
        this.groupCommit = b.groupCommit;
        this.partitioning = b.partitioning;
        this.replicaAcks = b.replicaAcks;
        this.driverPath = b.driverPath == null || b.driverPath.trim().isEmpty() ? null : b.driverPath.trim();
        if (!url.startsWith("jdbc:") && !StoreSettings.isRedisUrl(url)) {
            fail("url", redacted(url), "a JDBC URL (jdbc:postgresql:, jdbc:mariadb:, jdbc:mysql:, jdbc:h2:) or a "
                    + "Redis URL (redis://[user:password@]host:port[/db], rediss:// for TLS, "
                    + "redis-sentinel://host:26379[,host:26379...]/master-name[/db] for Sentinel, "
                    + "redis-cluster://host:6379[,host:6379...] for a Cluster)");
        }
        if (!TABLE_NAME.matcher(table).matches()) fail("table", table, "an SQL identifier, optionally schema-qualified (letters, digits, _)");
        if (replicaAcks < 0 || replicaAcks > MAX_REPLICA_ACKS) {
            fail("replica-acks", String.valueOf(replicaAcks), "a number from 0 to " + MAX_REPLICA_ACKS);
        }
        if (poolSize < 1 || poolSize > 500) fail("pool-size", String.valueOf(poolSize), "a number from 1 to 500");
        requirePositive("connect-timeout", connectTimeout, Duration.ofMillis(250));
        requirePositive("query-timeout", queryTimeout, Duration.ofSeconds(1));
        requireBetween("lease", lease, Duration.ofMillis(100), MAX_LEASE);
        requireBetween("ttl", ttl, Duration.ofMillis(100), MAX_TTL);
        requireBetween("unknown-retention", unknownRetention, MIN_UNKNOWN_RETENTION, MAX_UNKNOWN_RETENTION);
        if (batchSize < 1) fail("batch-size", String.valueOf(batchSize), "a positive number");
        if (driverPath != null) {
            for (String file : driverFiles(driverPath)) {
                if (file.isEmpty() || !new File(file).isFile() || !new File(file).canRead()) {
                    fail("driver-path", driverPath, DRIVER_PATH_FORMAT + " ('" + file + "' is not a readable file)");
                }
            }
        }
        if (partitioning != null && !isPartitionWidth(partitioning)) {
            fail("partitioning", String.valueOf(partitioning), "none, daily, hourly, or a whole number of seconds from 1s to 1d that divides a day");
        }
        // Every statement by (scope, key) opens every partition and its indexes: a few dozen, not hundreds.
        if (partitioning != null && ttl != null && ttl.compareTo(partitioning.multipliedBy(MAX_PARTITIONS_PER_TTL)) > 0) {
            long needed = (ttl.toMillis() + MAX_PARTITIONS_PER_TTL * 1000L - 1) / (MAX_PARTITIONS_PER_TTL * 1000L);
            long width = needed;
            while (width < 86_400 && 86_400 % width != 0) width++;
            throw new StoreConfigurationException("store setting 'partitioning' is '" + describe(partitioning) + "', which keeps more than "
                    + MAX_PARTITIONS_PER_TTL + " partitions for a ttl of " + describe(ttl) + (needed > 86_400
                    ? "; daily partitions hold a ttl of at most " + MAX_PARTITIONS_PER_TTL + "d"
                    : "; use partitions at least " + describe(Duration.ofSeconds(width)) + " wide"));
        }
    }

    // Partitions start at whole multiples of their width since the epoch: a width dividing a day keeps them on UTC days.
    /** Whether a duration can be the width of the key table's time partitions. */
    public static boolean isPartitionWidth(Duration width) {
        long seconds = width.getSeconds();
        return width.getNano() == 0 && seconds >= 1 && seconds <= 86_400 && 86_400 % seconds == 0;
    }

    /** What the driver path accepts, for messages. */
    public static final String DRIVER_PATH_FORMAT =
            "one or more readable jar files, separated by '" + File.pathSeparator + "'";

    /** The files a driver path names, in order. */
    public static String[] driverFiles(String driverPath) {
        String[] files = driverPath.split(Pattern.quote(File.pathSeparator), -1);
        for (int i = 0; i < files.length; i++) files[i] = files[i].trim();
        return files;
    }

    /** The zero-set-up default: an H2 file database in the user's home directory. */
    public static String defaultH2Url() {
        String home = System.getProperty("user.home", ".");
        return "jdbc:h2:file:" + new File(home, ".idempotency-agent" + File.separator + "store").getAbsolutePath();
    }

    private static void requirePositive(String name, Duration value, Duration minimum) {
        if (value == null || value.compareTo(minimum) < 0) fail(name, String.valueOf(value), "a duration of at least " + minimum.toMillis() + "ms");
    }

    private static void requireBetween(String name, Duration value, Duration minimum, Duration maximum) {
        if (value == null || value.compareTo(minimum) < 0 || value.compareTo(maximum) > 0) {
            fail(name, String.valueOf(value), "a duration from " + describe(minimum) + " to " + describe(maximum));
        }
    }

    private static String describe(Duration d) {
        if (d.toMillis() % 86_400_000L == 0) return d.toDays() + "d";
        if (d.toMillis() % 3_600_000L == 0) return d.toHours() + "h";
        if (d.toMillis() % 1_000L == 0) return d.getSeconds() + "s";
        return d.toMillis() + "ms";
    }

    private static void fail(String name, String value, String accepted) {
        throw new StoreConfigurationException("store setting '" + name + "' is '" + value + "'; expected " + accepted);
    }

    public static Builder builder() { return new Builder(); }

    /** A builder holding these settings, to derive others from them (a tool that must not apply the schema mode). */
    public Builder toBuilder() {
        return builder().url(url).user(user).password(password).table(table).schemaMode(schemaMode).poolSize(poolSize)
                .connectTimeout(connectTimeout).queryTimeout(queryTimeout).lease(lease).ttl(ttl)
                .unknownRetention(unknownRetention).expiredLeasePolicy(expiredLeasePolicy).batchSize(batchSize)
                .groupCommit(groupCommit).partitioning(partitioning).replicaAcks(replicaAcks).driverPath(driverPath);
    }

    public String url() { return url; }
    public String user() { return user; }
    public String password() { return password; }
    public String table() { return table; }
    public SchemaMode schemaMode() { return schemaMode; }
    public int poolSize() { return poolSize; }
    public Duration connectTimeout() { return connectTimeout; }
    public Duration queryTimeout() { return queryTimeout; }
    public Duration lease() { return lease; }
    public Duration ttl() { return ttl; }
    /** How long a key stays {@link KeyStatus#UNKNOWN} before the purge may delete it (never before its ttl ran out). */
    public Duration unknownRetention() { return unknownRetention; }
    public ExpiredLeasePolicy expiredLeasePolicy() { return expiredLeasePolicy; }
    public int batchSize() { return batchSize; }
    /** Whether concurrent reservations and completions share statements and commits. */
    public boolean groupCommit() { return groupCommit; }
    /** Replicas that must hold a reservation or a response before it counts (Redis only; 0: the master's word). */
    public int replicaAcks() { return replicaAcks; }
    /** The width of the key table's time partitions (PostgreSQL), or null: one plain table. */
    public Duration partitioning() { return partitioning; }
    /**
     * The jar files (separated by the platform's path separator) the JDBC driver is loaded from instead of the driver
     * the store's own class loader has, or null: that one.
     */
    public String driverPath() { return driverPath; }

    /** The URL with any password parameter masked, for log lines. */
    public String redactedUrl() {
        return redacted(url);
    }

    /** Whether a URL names a Redis store: standalone, through Sentinel or a Cluster, with or without TLS. */
    public static boolean isRedisUrl(String url) {
        return url.startsWith("redis://") || url.startsWith("rediss://") || url.startsWith("redis-sentinel://")
                || url.startsWith("rediss-sentinel://") || url.startsWith("redis-cluster://")
                || url.startsWith("rediss-cluster://");
    }

    /**
     * A store URL with any password masked, for log lines and messages: a JDBC URL's password parameter, and the
     * password of a URL's user information ({@code redis://user:password@host},
     * {@code jdbc:mysql://user:password@host}).
     */
    public static String redacted(String url) {
        return url.replaceAll("(?i)(password=)[^&;]*", "$1***")
                .replaceFirst("^((?:jdbc:)?[A-Za-z][A-Za-z0-9+.-]*://[^:@/?#]*:)[^@]*@", "$1***@");
    }

    @Override
    public String toString() {
        return "StoreSettings[url=" + redactedUrl() + ", user=" + user + ", password=" + (password == null ? "none" : "***")
                + ", table=" + table + ", schema=" + schemaMode + ", pool=" + poolSize + ", lease=" + lease + ", ttl=" + ttl
                + ", unknownRetention=" + unknownRetention + ", expiredLease=" + expiredLeasePolicy
                + ", groupCommit=" + groupCommit + (partitioning == null ? "" : ", partitioning=" + partitioning)
                + (replicaAcks == 0 ? "" : ", replicaAcks=" + replicaAcks)
                + (driverPath == null ? "" : ", driverPath=" + driverPath) + "]";
    }

    public static final class Builder {
        private String url;
        private String user;
        private String password;
        private String table = "idempotency_keys";
        private SchemaMode schemaMode = SchemaMode.CREATE;
        private Integer poolSize;
        private Duration connectTimeout = Duration.ofSeconds(2);
        private Duration queryTimeout = Duration.ofSeconds(5);
        private Duration lease = Duration.ofSeconds(30);
        private Duration ttl = Duration.ofHours(24);
        private Duration unknownRetention = Duration.ofDays(30);
        private ExpiredLeasePolicy expiredLeasePolicy = ExpiredLeasePolicy.RECONCILE;
        private int batchSize = 500;
        private boolean groupCommit = true;
        private Duration partitioning;
        private int replicaAcks;
        private String driverPath;

        /** JDBC or Redis URL; null or blank selects the embedded H2 default. */
        public Builder url(String url) { this.url = url; return this; }
        public Builder user(String user) { this.user = user; return this; }
        public Builder password(String password) { this.password = password; return this; }
        public Builder table(String table) { this.table = table; return this; }
        public Builder schemaMode(SchemaMode schemaMode) { this.schemaMode = schemaMode; return this; }
        /** Null: the family's own, {@value #DATABASE_POOL_SIZE} for a database, {@value #REDIS_POOL_SIZE} for Redis. */
        public Builder poolSize(Integer poolSize) { this.poolSize = poolSize; return this; }
        /** How long to wait for a connection before {@link StoreUnavailableException}. */
        public Builder connectTimeout(Duration connectTimeout) { this.connectTimeout = connectTimeout; return this; }
        /** How long one statement may wait on the network before {@link StoreUnavailableException}. */
        public Builder queryTimeout(Duration queryTimeout) { this.queryTimeout = queryTimeout; return this; }
        /** How long a request owns its key without renewal: 100ms to 1h. */
        public Builder lease(Duration lease) { this.lease = lease; return this; }
        /** How long a key is kept after it was created or last acquired: 100ms to 365d. */
        public Builder ttl(Duration ttl) { this.ttl = ttl; return this; }
        /**
         * How long a key whose outcome is unknown is kept, counted from the moment it became unknown, before
         * {@link IdempotencyStore#purgeExpired()} deletes it (and never before its ttl ran out): 1h to 3650d, default 30d.
         */
        public Builder unknownRetention(Duration unknownRetention) { this.unknownRetention = unknownRetention; return this; }
        public Builder expiredLeasePolicy(ExpiredLeasePolicy policy) { this.expiredLeasePolicy = policy; return this; }
        /** Rows per statement in the sweeper and the purge. */
        public Builder batchSize(int batchSize) { this.batchSize = batchSize; return this; }

        /**
         * Concurrent reservations and completions share one statement and one commit (on by default): a caller alone
         * never waits; batches form only while the database is busy. Off, each runs its own statements.
         */
        public Builder groupCommit(boolean groupCommit) { this.groupCommit = groupCommit; return this; }

        /**
         * Time partitions of the key table, each this wide (PostgreSQL only; null, the default: one plain table). The
         * purge then drops whole partitions whose keys all expired instead of deleting rows.
         */
        public Builder partitioning(Duration partitioning) { this.partitioning = partitioning; return this; }

        /**
         * Redis only: a reservation or a response counts once this many replicas acknowledge it ({@code WAIT}, within
         * the query timeout); fewer in time, and the caller hears that the store is unavailable. 0 (the default): the
         * master's answer counts, and a failover may lose what its replicas had not copied yet.
         */
        public Builder replicaAcks(int replicaAcks) { this.replicaAcks = replicaAcks; return this; }

        /**
         * JDBC stores: load the driver class from these jar files (separated by {@link File#pathSeparator}), in a class
         * loader of their own whose parent is the JDK's platform loader, instead of from the store's own class loader.
         * Null or blank (the default): the store's own.
         */
        public Builder driverPath(String driverPath) { this.driverPath = driverPath; return this; }

        public StoreSettings build() { return new StoreSettings(this); }
    }
}
