package dev.idempotency.store.jdbc;

import dev.idempotency.store.jdbc.dialect.Dialect;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.IntConsumer;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The time partitions of a PostgreSQL key table: made ahead of the clock, and dropped whole once every key in them
 * expired. A key sits in the partition of the moment it was last given a ttl (its {@code part_at}, filled in by the
 * column's default from the clock at the write; the statements that renew a key's ttl move it to the current
 * partition). So a partition that ended a ttl ago holds only expired keys, except keys still in flight (kept until they
 * end) and keys whose outcome is unknown (moved to the current partition, to wait for an operator there).
 */
final class TimePartitions {
    /** Partitions made beyond the current one, so that the clock never outruns the housekeeping. */
    static final int AHEAD = 3;
    /** How long a drop waits for its exclusive lock on the key table (which queues every statement behind it). */
    private static final String DDL_LOCK_TIMEOUT = "50ms";
    private static final String NO_SUCH_TABLE = "42P01";
    private static final DateTimeFormatter SUFFIX = DateTimeFormatter.ofPattern("yyyyMMdd'T'HHmmss", Locale.ROOT).withZone(ZoneOffset.UTC);
    private static final DateTimeFormatter BOUND = DateTimeFormatter.ofPattern("yyyy-MM-dd HH:mm:ss'+00'", Locale.ROOT).withZone(ZoneOffset.UTC);

    private final String table;
    /** The schema prefix of a qualified table name ("app."), or empty: partitions live beside their table. */
    private final String schemaPrefix;
    private final String name;
    private final long widthSeconds;
    private final long ttlSeconds;
    private final Pattern partitionName;
    private final Dialect dialect;
    private final int queryTimeoutSeconds;
    private final long queryTimeoutNanos;
    private final String lockStatement;
    private final String moveUnknownOut;
    /** One thread of this JVM makes partitions at a time; fair, see {@link #awaitAnyBeingMade}. */
    private final ReentrantLock making = new ReentrantLock(true);

    TimePartitions(Dialect dialect, String table, Duration width, Duration ttl, int queryTimeoutSeconds, int batchSize) {
        this.dialect = dialect;
        // The transaction-scoped lock that serialises schema changes to the table across nodes.
        this.lockStatement = dialect.schemaLockStatement(table);
        this.queryTimeoutSeconds = queryTimeoutSeconds;
        this.queryTimeoutNanos = TimeUnit.SECONDS.toNanos(queryTimeoutSeconds);
        this.table = table;
        int dot = table.indexOf('.');
        this.schemaPrefix = dot < 0 ? "" : table.substring(0, dot + 1);
        this.name = dot < 0 ? table : table.substring(dot + 1);
        this.widthSeconds = width.getSeconds();
        this.ttlSeconds = (ttl.toMillis() + 999) / 1000;
        this.partitionName = Pattern.compile(Pattern.quote(name.toLowerCase(Locale.ROOT)) + "_p(\\d{8}t\\d{6})");
        // Rows another transaction holds are left for a later round: moving one under it would fail that transaction.
        this.moveUnknownOut = "UPDATE " + table + " SET part_at = DEFAULT WHERE part_at = CAST(? AS TIMESTAMPTZ) AND status = 'UNKNOWN'"
                + " AND ctid = ANY(ARRAY(SELECT ctid FROM %s WHERE status = 'UNKNOWN' LIMIT " + batchSize + " FOR UPDATE SKIP LOCKED))";
    }

    /**
     * The partition width a key table was made with: null when the table is one plain table or absent; zero when it
     * is partitioned, but not as the store makes it (another partition key, or without the store's functions).
     */
    static Duration widthOf(Connection c, String table) throws SQLException {
        String partitionKey;
        try (PreparedStatement ps = c.prepareStatement("SELECT pg_get_partkeydef(partrelid) FROM pg_partitioned_table WHERE partrelid = to_regclass(?)")) {
            ps.setString(1, table);
            try (ResultSet rs = ps.executeQuery()) {
                if (!rs.next()) return null;
                partitionKey = rs.getString(1);
            }
        }
        if (!"RANGE (part_at)".equalsIgnoreCase(partitionKey) || !functionExists(c, table + "_partition_seconds")
                || !functionExists(c, table + "_partition_start") || !functionExists(c, table + "_vacant")) {
            return Duration.ZERO;
        }
        try (Statement s = c.createStatement(); ResultSet rs = s.executeQuery("SELECT " + table + "_partition_seconds()")) {
            rs.next();
            return Duration.ofSeconds(rs.getLong(1));
        }
    }

    /** Whether a table exists, asked without a failing statement (which would abort the caller's transaction). */
    static boolean exists(Connection c, String table) throws SQLException {
        try (PreparedStatement ps = c.prepareStatement("SELECT to_regclass(?) IS NOT NULL")) {
            ps.setString(1, table);
            try (ResultSet rs = ps.executeQuery()) {
                return rs.next() && rs.getBoolean(1);
            }
        }
    }

    private static boolean functionExists(Connection c, String function) throws SQLException {
        try (PreparedStatement ps = c.prepareStatement("SELECT to_regproc(?) IS NOT NULL")) {
            ps.setString(1, function);
            try (ResultSet rs = ps.executeQuery()) {
                return rs.next() && rs.getBoolean(1);
            }
        }
    }

    /**
     * Whether a write failed because no partition covers the moment it wrote at: the only check violation the key
     * table can raise (it has no CHECK constraints), known by its state in whatever language the server speaks.
     */
    static boolean missing(SQLException e) {
        return "23514".equals(e.getSQLState());
    }

    /**
     * Makes the current partition and {@link #AHEAD} more where missing, one thread of this JVM at a time, nodes
     * serialised by a transaction-scoped advisory lock. Each is made as a table of its own, then attached, which does
     * not lock out the key table's readers and writers (the attach takes a lock that only other DDL conflicts with).
     * When that lock is not granted within the session's lock timeout, partitions ahead are made by a later round: this
     * fails only when the current partition is still missing.
     */
    void createAhead(Connection c) throws SQLException {
        making.lock();
        try {
            createAheadLocked(c);
        } finally {
            making.unlock();
        }
    }

    private void createAheadLocked(Connection c) throws SQLException {
        long current = currentIndex(c);
        if (missingFrom(c, current).isEmpty()) return;
        try {
            inTransaction(c, null, s -> {
                s.execute(lockStatement);
                for (long i : missingFrom(c, current)) {
                    String partition = schemaPrefix + name + "_p" + suffixOf(i);
                    s.execute("CREATE TABLE " + partition + " (LIKE " + table + " INCLUDING DEFAULTS) WITH (fillfactor = "
                            + SchemaManager.KEY_TABLE_FILLFACTOR + ")");
                    s.execute("ALTER TABLE " + table + " ATTACH PARTITION " + partition + " FOR VALUES FROM ('"
                            + BOUND.format(start(i)) + "') TO ('" + BOUND.format(start(i + 1)) + "')");
                }
            });
        } catch (SQLException e) {
            // Not granted in time: enough while the partition for now exists (the others are made by a later round).
            if (!Failures.lockNotGranted(e) || !partitions(c).contains(suffixOf(current))) throw e;
        }
    }

    /**
     * Returns once no thread of this JVM is in {@link #createAhead}, nor queued for it before this call: the lock is
     * fair, so a caller just refused cannot take it back ahead of one already waiting to try again.
     */
    void awaitAnyBeingMade() {
        making.lock();
        making.unlock();
    }

    /** The partitions from {@code current} to {@link #AHEAD} beyond it that do not exist. */
    private List<Long> missingFrom(Connection c, long current) throws SQLException {
        List<String> existing = partitions(c);
        List<Long> wanted = new ArrayList<>();
        for (long i = current; i <= current + AHEAD; i++) {
            if (!existing.contains(suffixOf(i))) wanted.add(i);
        }
        return wanted;
    }

    private interface Ddl {
        void run(Statement s) throws SQLException;
    }

    /** {@code ddl} in a transaction of its own, waiting for locks at most {@code lockTimeout} (null: the session's). */
    private void inTransaction(Connection c, String lockTimeout, Ddl ddl) throws SQLException {
        DdlTransaction.run(c, () -> {
            try (Statement s = statement(c)) {
                if (lockTimeout != null) s.execute("SET LOCAL lock_timeout = '" + lockTimeout + "'");
                ddl.run(s);
            }
            // Cancelled at the query timeout like any statement: a commit waiting for an absent synchronous standby
            // would otherwise hold its server process, and the locks of its DDL, until the standby returns.
            dialect.commit(c, this::withDriverTimeout, queryTimeoutNanos);
        });
    }

    /**
     * Drops every partition that ended at least a ttl ago and holds nothing still remembered, reporting the keys each
     * took with it; moves keys of unknown outcome out of such partitions first. A partition still holding a key in
     * flight waits for a later round. The last look and the detach happen with the key table locked, so that no write
     * committing meanwhile can leave a key there; the lock queues every statement behind it, so it is asked for only
     * while no other transaction has held the table for long, and waited for at most {@link #DDL_LOCK_TIMEOUT}; the
     * round ends at the first refusal. The detached table is dropped after the lock is released.
     */
    int dropExpired(Connection c, IntConsumer afterEachPartition) throws SQLException {
        long now = nowSeconds(c);
        int dropped = dropDetached(c, now, afterEachPartition);
        for (String suffix : partitions(c)) {
            long start = SUFFIX.parse(suffix.toUpperCase(Locale.ROOT), Instant::from).getEpochSecond();
            if (start + widthSeconds + ttlSeconds > now) continue;
            String partition = schemaPrefix + name + "_p" + suffix;
            try (Statement s = statement(c)) {
                try (PreparedStatement move = c.prepareStatement(String.format(moveUnknownOut, partition))) {
                    withDriverTimeout(move);
                    move.setString(1, BOUND.format(Instant.ofEpochSecond(start)));
                    while (move.executeUpdate() > 0) {
                        // in batches, until none is left that no one holds
                    }
                }
                if (holdsLiveKeys(s, partition)) continue;
                if (tableHeldLong(s)) return dropped; // asking for the lock now would hold every request behind it
                int keys = keysIn(s, partition);
                boolean[] detached = {false};
                inTransaction(c, DDL_LOCK_TIMEOUT, locked -> {
                    locked.execute("LOCK TABLE ONLY " + table + " IN ACCESS EXCLUSIVE MODE");
                    // Same order as every statement (the table, then its partition); one held by vacuum is left at once.
                    locked.execute("LOCK TABLE " + partition + " IN ACCESS EXCLUSIVE MODE NOWAIT");
                    if (holdsLiveKeys(locked, partition)) return;
                    locked.execute("ALTER TABLE " + table + " DETACH PARTITION " + partition);
                    detached[0] = true;
                });
                if (!detached[0]) continue;
                s.execute("DROP TABLE IF EXISTS " + partition);
                dropped += keys;
                if (keys > 0) afterEachPartition.accept(keys);
            } catch (SQLException e) {
                if (Failures.lockNotGranted(e)) return dropped; // the next round tries again
                // Another node dropped it first, or one of its rows moved meanwhile: the next round looks again.
                if (!NO_SUCH_TABLE.equals(e.getSQLState()) && !Failures.lostConflict(e)) throw e;
            }
        }
        return dropped;
    }

    /** Whether another transaction has held a lock on the key table for longer than the drop may wait. */
    private boolean tableHeldLong(Statement s) throws SQLException {
        try (ResultSet rs = s.executeQuery("SELECT EXISTS (SELECT 1 FROM pg_locks l JOIN pg_stat_activity a ON a.pid = l.pid"
                + " WHERE l.relation = to_regclass('" + table + "') AND l.granted AND l.pid <> pg_backend_pid()"
                + " AND a.xact_start < clock_timestamp() - INTERVAL '" + DDL_LOCK_TIMEOUT + "')")) {
            rs.next();
            return rs.getBoolean(1);
        }
    }

    /**
     * Partitions detached but not yet dropped (the store stopped between the two): each ended a ttl ago and held
     * nothing remembered when it was detached, so it goes now.
     */
    private int dropDetached(Connection c, long now, IntConsumer afterEachPartition) throws SQLException {
        List<String> detached = new ArrayList<>();
        try (PreparedStatement ps = prepare(c, "SELECT t.relname FROM pg_class t WHERE t.relkind = 'r'"
                + " AND t.relnamespace = (SELECT relnamespace FROM pg_class WHERE oid = to_regclass(?))"
                + " AND NOT EXISTS (SELECT 1 FROM pg_inherits i WHERE i.inhrelid = t.oid) AND t.relname LIKE ?")) {
            ps.setString(1, table);
            ps.setString(2, name.toLowerCase(Locale.ROOT).replace("_", "\\_") + "\\_p%");
            try (ResultSet rs = ps.executeQuery()) {
                while (rs.next()) {
                    Matcher m = partitionName.matcher(rs.getString(1));
                    if (m.matches() && SUFFIX.parse(m.group(1).toUpperCase(Locale.ROOT), Instant::from).getEpochSecond()
                            + widthSeconds + ttlSeconds <= now) {
                        detached.add(schemaPrefix + rs.getString(1));
                    }
                }
            }
        }
        int dropped = 0;
        for (String orphan : detached) {
            try (Statement s = statement(c)) {
                int keys = keysIn(s, orphan);
                s.execute("DROP TABLE IF EXISTS " + orphan);
                dropped += keys;
                if (keys > 0) afterEachPartition.accept(keys);
            }
        }
        return dropped;
    }

    /**
     * The keys a partition holds, counted; a partition too large to count within the query timeout reports the
     * planner's estimate instead (a figure for the purge's metrics, not worth holding the database for).
     */
    private static int keysIn(Statement s, String partition) throws SQLException {
        try (ResultSet rs = s.executeQuery("SELECT COUNT(*) FROM " + partition)) {
            rs.next();
            return rs.getInt(1);
        } catch (SQLException e) {
            if (!"57014".equals(e.getSQLState())) throw e;
        }
        try (ResultSet rs = s.executeQuery("SELECT CAST(GREATEST(reltuples, 0) AS BIGINT) FROM pg_class WHERE oid = to_regclass('"
                + partition + "')")) {
            return rs.next() ? (int) Math.min(Integer.MAX_VALUE, rs.getLong(1)) : 0;
        }
    }

    private Statement statement(Connection c) throws SQLException {
        Statement s = c.createStatement();
        withDriverTimeout(s);
        return s;
    }

    // The driver's own timer, not the store's watchdog (which watches a statement for one execution): most statements
    // here run several times, and this housekeeping is too rare for the timer's cost to matter.
    private void withDriverTimeout(Statement s) throws SQLException {
        s.setQueryTimeout(queryTimeoutSeconds);
    }

    // Each probe is answered by one of the partial indexes (in flight, terminal by expiry, unknown): no scan.
    private static boolean holdsLiveKeys(Statement s, String partition) throws SQLException {
        try (ResultSet rs = s.executeQuery("SELECT EXISTS (SELECT 1 FROM " + partition + " WHERE status = 'IN_FLIGHT')"
                + " OR EXISTS (SELECT 1 FROM " + partition + " WHERE status IN ('COMPLETED', 'RETRYABLE') AND expires_at > CURRENT_TIMESTAMP)"
                + " OR EXISTS (SELECT 1 FROM " + partition + " WHERE status = 'UNKNOWN')")) {
            rs.next();
            return rs.getBoolean(1);
        }
    }

    /** The suffixes of this table's partitions made by the store, oldest first. */
    List<String> partitions(Connection c) throws SQLException {
        List<String> suffixes = new ArrayList<>();
        try (PreparedStatement ps = prepare(c, "SELECT child.relname FROM pg_inherits i JOIN pg_class child ON child.oid = i.inhrelid"
                + " WHERE i.inhparent = to_regclass(?) ORDER BY child.relname")) {
            ps.setString(1, table);
            try (ResultSet rs = ps.executeQuery()) {
                while (rs.next()) {
                    Matcher m = partitionName.matcher(rs.getString(1));
                    if (m.matches()) suffixes.add(m.group(1));
                }
            }
        }
        return suffixes;
    }

    private PreparedStatement prepare(Connection c, String sql) throws SQLException {
        PreparedStatement ps = c.prepareStatement(sql);
        withDriverTimeout(ps);
        return ps;
    }

    private long currentIndex(Connection c) throws SQLException {
        return Math.floorDiv(nowSeconds(c), widthSeconds);
    }

    // The clock, not the transaction's start: what the column's default writes now.
    private long nowSeconds(Connection c) throws SQLException {
        try (Statement s = statement(c);
             ResultSet rs = s.executeQuery("SELECT CAST(floor(extract(epoch FROM clock_timestamp())) AS BIGINT)")) {
            rs.next();
            return rs.getLong(1);
        }
    }

    private Instant start(long index) {
        return Instant.ofEpochSecond(index * widthSeconds);
    }

    private String suffixOf(long index) {
        return SUFFIX.format(start(index)).toLowerCase(Locale.ROOT);
    }
}
