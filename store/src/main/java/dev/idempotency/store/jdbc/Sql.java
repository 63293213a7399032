package dev.idempotency.store.jdbc;

import dev.idempotency.store.jdbc.dialect.Dialect;
import dev.idempotency.store.upkeep.SweepHorizon;

import java.util.concurrent.atomic.AtomicReferenceArray;

/** Every statement the store runs, written once for a table and a dialect. */
final class Sql {
    private static final String RESPONSE_COLUMNS = "response_status, response_headers, response_body";

    final String insert;
    final String selectState;
    final String takeOverExpiredKey;
    final String takeOverRetryable;
    final String takeOverExpiredLease;
    final String markUnknown;
    final String complete;
    final String replaceResponse;
    final String touchCompleted;
    final String release;
    /** The sweeps of expired leases; their parameters: {@link #lookBack}. */
    final String sweepToUnknown;
    final String sweepToRetryable;
    /** The sweeps' backstop, run by the purge: in-flight keys whose lease and whole ttl ran out, however long ago. */
    final String sweepExpiredKeysToUnknown;
    final String sweepExpiredKeysToRetryable;
    /** The purge, one statement per status: null with time partitions. */
    final java.util.List<String> purge;
    final String purgeUnknown;
    final String insertSecret;
    final String selectSecret;
    final String find;
    final String countByStatus;
    final String databaseTime;
    private final String summary;
    private final String createdBefore;
    final String resolveForRetry;
    final String resolveAsCompleted;
    final String delete;
    final String lockKey;
    final String ownerMarks;
    /** Parameters: how many milliseconds back to look, then the limit. */
    final String expiredLeases;
    /** The backstop's candidates under recovery=transaction; parameter: the limit. */
    final String expiredLeasesOfExpiredKeys;
    final String releaseAfterCrash;
    final String effectsOf;
    final String purgeEffects;
    private final String renewPrefix;
    private final Dialect dialect;
    private final String table;
    private final String selectStateColumns;
    /**
     * {@link #reserveMany} by batch size: built once, so its hash is computed once too (the driver finds its prepared
     * statement by the text, about a kilobyte: building and hashing it anew cost about 4 % of a keyed request's CPU).
     */
    private final AtomicReferenceArray<String> reserveManyBySize = new AtomicReferenceArray<>(RESERVE_MANY_CACHED + 1);
    private static final int RESERVE_MANY_CACHED = 64;
    private final long leaseMillis;
    private final long ttlMillis;
    /** Time partitions: the function that decides, under a lock on the key, whether no partition holds it; else null. */
    private final String vacant;

    Sql(Dialect d, String table, int batchSize, long unknownRetentionMillis, long leaseMillis, long ttlMillis, boolean partitioned) {
        this.leaseMillis = leaseMillis;
        this.ttlMillis = ttlMillis;
        this.dialect = d;
        this.table = table;
        this.vacant = partitioned ? table + "_vacant" : null;
        String now = d.now();
        String plus = d.nowPlusMillisParameter();
        String byId = " WHERE scope = ? AND idem_key = ?";
        // Every write that gives a key a new ttl moves it to the current partition: a partition's keys expire together.
        String toCurrentPartition = partitioned ? ", part_at = DEFAULT" : "";
        String newLease = "status = 'IN_FLIGHT', owner_token = ?, lease_expires_at = " + plus + ", updated_at = " + now + toCurrentPartition;

        String insertColumns = "scope, idem_key, fingerprint, status, owner_token, lease_expires_at, attempts, created_at, updated_at, expires_at";
        insert = partitioned
                ? "INSERT INTO " + table + " (" + insertColumns + ") SELECT v.scope, v.idem_key, v.fingerprint, 'IN_FLIGHT', v.owner_token, "
                        + "CURRENT_TIMESTAMP + v.lease_ms * INTERVAL '1 millisecond', 1, " + now + ", " + now
                        + ", CURRENT_TIMESTAMP + v.ttl_ms * INTERVAL '1 millisecond' FROM (VALUES (CAST(? AS VARCHAR), CAST(? AS VARCHAR), "
                        + "CAST(? AS VARCHAR), CAST(? AS VARCHAR), CAST(? AS BIGINT), CAST(? AS BIGINT))) "
                        + "AS v (scope, idem_key, fingerprint, owner_token, lease_ms, ttl_ms) WHERE " + vacant + "(v.scope, v.idem_key)"
                : d.insertIfAbsent(table, insertColumns,
                        "?, ?, ?, 'IN_FLIGHT', ?, " + plus + ", 1, " + now + ", " + now + ", " + plus, "scope, idem_key");
        selectStateColumns = "fingerprint, status, owner_token, " + RESPONSE_COLUMNS + ", "
                + d.millisUntil("lease_expires_at") + " AS lease_left_ms, "
                + "CASE WHEN expires_at <= " + now + " THEN 1 ELSE 0 END AS expired";
        selectState = "SELECT " + selectStateColumns + " FROM " + table + byId;
        // An expired terminal key counts as new: reset everything, as if it had just been inserted.
        takeOverExpiredKey = "UPDATE " + table + " SET fingerprint = ?, " + newLease + ", attempts = 1, response_status = NULL, "
                + "response_headers = NULL, response_body = NULL, created_at = " + now + ", expires_at = " + plus
                + byId + " AND status IN ('COMPLETED', 'RETRYABLE') AND expires_at <= " + now;
        // A key acquired again lives a full ttl from now: an attempt near the end of the key's life must not see its
        // key purged, and so forgotten, while it runs or just after it completed.
        takeOverRetryable = "UPDATE " + table + " SET " + newLease + ", attempts = attempts + 1, expires_at = " + plus
                + byId + " AND fingerprint = ? AND status = 'RETRYABLE'";
        takeOverExpiredLease = "UPDATE " + table + " SET " + newLease + ", attempts = attempts + 1, expires_at = " + plus
                + byId + " AND fingerprint = ? AND status = 'IN_FLIGHT' AND owner_token = ? AND lease_expires_at <= " + now;
        // The owner keeps its token: if it was only slow, its late completion still records the truth.
        markUnknown = "UPDATE " + table + " SET status = 'UNKNOWN', lease_expires_at = NULL, updated_at = " + now
                + byId + " AND status = 'IN_FLIGHT' AND owner_token = ? AND lease_expires_at <= " + now;
        // The lease is left as it was: the key table's indexes hold neither status nor updated_at, and a completion that
        // changes no indexed column is a heap-only (HOT) update on PostgreSQL, writing no index entry and leaving no
        // dead one behind. A completed key's lease means nothing (readers show it only for a key in flight).
        complete = "UPDATE " + table + " SET status = 'COMPLETED', response_status = ?, response_headers = ?, response_body = ?, "
                + "updated_at = " + now
                + byId + " AND owner_token = ? AND status IN ('IN_FLIGHT', 'UNKNOWN')";
        replaceResponse = "UPDATE " + table + " SET response_status = ?, response_headers = ?, response_body = ?, updated_at = " + now
                + byId + " AND owner_token = ? AND status = 'COMPLETED'";
        release = "UPDATE " + table + " SET status = 'RETRYABLE', owner_token = NULL, lease_expires_at = NULL, updated_at = " + now
                + byId + " AND owner_token = ? AND status IN ('IN_FLIGHT', 'UNKNOWN')";
        renewPrefix = "UPDATE " + table + " SET lease_expires_at = " + plus + " WHERE status = 'IN_FLIGHT' AND (";
        // Completed keys keep their lease (above), so the lease index holds them too: the sweep reads only leases that
        // ran out since the previous sweep looked, each key about once, never the whole history.
        String expiredLease = "status = 'IN_FLIGHT' AND lease_expires_at <= " + now + " AND lease_expires_at > " + plus; // plus minus the look-back
        String expiredKey = "status = 'IN_FLIGHT' AND lease_expires_at <= " + now + " AND expires_at <= " + now;
        String toUnknown = "status = 'UNKNOWN', lease_expires_at = NULL, updated_at = " + now;
        String toRetryable = "status = 'RETRYABLE', owner_token = NULL, lease_expires_at = NULL, updated_at = " + now;
        sweepToUnknown = d.limitedUpdate(table, toUnknown, expiredLease, batchSize);
        sweepToRetryable = d.limitedUpdate(table, toRetryable, expiredLease, batchSize);
        sweepExpiredKeysToUnknown = d.limitedUpdate(table, toUnknown, expiredKey, batchSize);
        sweepExpiredKeysToRetryable = d.limitedUpdate(table, toRetryable, expiredKey, batchSize);
        // With time partitions expired keys go with their partition, never row by row. One status per statement: with
        // an IN list on the first column of its index H2 reads every key of those statuses, and sets the range aside.
        purge = partitioned ? null : java.util.Arrays.asList(
                d.limitedDelete(table, "status = 'COMPLETED' AND expires_at <= " + now, batchSize),
                d.limitedDelete(table, "status = 'RETRYABLE' AND expires_at <= " + now, batchSize));
        // Nothing changes an unknown key but leaving that status, so its updated_at is the moment it became unknown.
        // It is never deleted before its ttl ran out either: like any key, it is remembered for at least that long.
        purgeUnknown = d.limitedDelete(table, "status = 'UNKNOWN' AND updated_at <= " + d.nowPlusMillis(-unknownRetentionMillis)
                + " AND expires_at <= " + now, batchSize);
        insertSecret = d.insertIfAbsent(table + "_secret", "id, secret", "1, ?", "id");
        selectSecret = "SELECT secret FROM " + table + "_secret WHERE id = 1";
        String keyColumns = "SELECT scope, idem_key, fingerprint, status, attempts, lease_expires_at, created_at, updated_at, expires_at, ";
        String record = keyColumns + RESPONSE_COLUMNS + " FROM " + table;
        // A listing reads no bodies: thousands of keys must not pull their stored responses.
        summary = keyColumns + "response_status, OCTET_LENGTH(response_body) AS response_size FROM " + table;
        find = record + byId;
        createdBefore = "created_at <= " + d.nowPlusMillisParameter();
        countByStatus = "SELECT status, COUNT(*) AS n FROM " + table + " GROUP BY status";
        databaseTime = "SELECT " + now + " AS db_now";
        // Unknown: so marked, or in flight past its lease and not yet swept. Never a key a live owner holds.
        String outcomeUnknown = " AND (status = 'UNKNOWN' OR status = 'IN_FLIGHT' AND lease_expires_at <= " + now + ")";
        resolveForRetry = "UPDATE " + table + " SET status = 'RETRYABLE', owner_token = NULL, lease_expires_at = NULL, updated_at = " + now
                + byId + outcomeUnknown;
        // The decided response is replayed for a full ttl from the decision, however long the key waited for it.
        // Writes nothing new, but commits: on a primary with a synchronous standby its commit waits until everything
        // before it, the completion it looks for included, is on the standby.
        touchCompleted = "UPDATE " + table + " SET updated_at = updated_at" + byId + " AND owner_token = ? AND status = 'COMPLETED'";
        resolveAsCompleted = "UPDATE " + table + " SET status = 'COMPLETED', response_status = ?, response_headers = ?, "
                + "response_body = ?, lease_expires_at = NULL, updated_at = " + now + ", expires_at = " + plus + toCurrentPartition
                + byId + outcomeUnknown;
        delete = "DELETE FROM " + table + byId + " AND NOT (status = 'IN_FLIGHT' AND lease_expires_at > " + now + ")";
        // Effect marks decide an expired lease inside one transaction: the key's row is locked first, so a mark that an
        // application transaction is committing (it holds a lock on that row) is waited for and then read.
        String effects = table + "_effects";
        lockKey = "SELECT owner_token, status, CASE WHEN lease_expires_at <= " + now + " THEN 1 ELSE 0 END AS lease_over FROM "
                + table + byId + " FOR UPDATE";
        ownerMarks = "SELECT kind FROM " + effects + byId + " AND owner_token = ?" + d.shareLockClause();
        expiredLeases = "SELECT scope, idem_key, owner_token FROM " + table + " WHERE " + expiredLease
                + " ORDER BY lease_expires_at" + d.limitParameter();
        expiredLeasesOfExpiredKeys = "SELECT scope, idem_key, owner_token FROM " + table + " WHERE " + expiredKey
                + " ORDER BY expires_at" + d.limitParameter();
        releaseAfterCrash = "UPDATE " + table + " SET status = 'RETRYABLE', owner_token = NULL, lease_expires_at = NULL, updated_at = "
                + now + byId + " AND status = 'IN_FLIGHT' AND owner_token = ? AND lease_expires_at <= " + now;
        effectsOf = "SELECT m.kind, m.detail, m.marked_at FROM " + effects + " m JOIN " + table + " k ON k.scope = m.scope"
                + " AND k.idem_key = m.idem_key AND k.owner_token = m.owner_token WHERE m.scope = ? AND m.idem_key = ?"
                + " ORDER BY m.marked_at, m.mark_id";
        // Marks matter while their owner holds the key in flight or unknown. A young mark is kept whatever the key
        // shows: a statement that read the keys before the mark's key was reserved must not take it.
        purgeEffects = d.limitedDelete(effects, "owner_token NOT IN (SELECT owner_token FROM " + table
                + " WHERE status IN ('IN_FLIGHT', 'UNKNOWN') AND owner_token IS NOT NULL) AND marked_at <= "
                + d.nowPlusMillis(-leaseMillis), batchSize);
    }

    /**
     * The parameters of {@link #sweepToUnknown} or {@link #sweepToRetryable}: the look-back (milliseconds before the
     * database's now, see {@link SweepHorizon}) at every place the statement names it; a dialect that limits an update
     * by a subquery names the condition twice.
     */
    static Object[] lookBack(String sweep, long millis) {
        Object[] params = new Object[sweep.length() - sweep.replace("?", "").length()];
        java.util.Arrays.fill(params, -millis);
        return params;
    }

    /** The select of an operator's query: each filter present adds one {@code ?} parameter, in this order, then the limit. */
    String list(boolean byStatus, boolean byScope, boolean byAge) {
        StringBuilder sql = new StringBuilder(summary).append(" WHERE 1 = 1");
        if (byStatus) sql.append(" AND status = ?");
        if (byScope) sql.append(" AND scope = ?");
        if (byAge) sql.append(" AND ").append(createdBefore);
        return sql.append(" ORDER BY created_at, scope, idem_key").append(dialect.limitParameter()).toString();
    }

    /**
     * PostgreSQL: the first inserts of {@code count} reservations (four parameters each: scope, key, fingerprint,
     * token) in one statement, answering one row per reservation: {@code batch_token}, {@code inserted} (1 when its row
     * went in) and otherwise the {@link #selectState} columns of the row that refused it. Those are read from the
     * statement's snapshot: a row committed by someone else while it ran refuses the insert yet shows no state (null
     * status), and that reservation looks again. Lease and ttl are validated settings, written as numbers.
     * The refused keys are looked up one by one by primary key (a lateral subquery that OFFSET 0 keeps from being
     * flattened into a join): as a join, a plan made while the table was new and empty hash-joined a sequential scan
     * of the whole table, and the driver's cached statement kept that plan while the table grew (measured: thousands
     * of full scans in a new server's first minutes under load). Inserted keys skip the lookup.
     */
    String reserveMany(int count) {
        if (count > RESERVE_MANY_CACHED) return buildReserveMany(count);
        String cached = reserveManyBySize.get(count);
        if (cached == null) {
            cached = buildReserveMany(count);
            reserveManyBySize.set(count, cached);
        }
        return cached;
    }

    private String buildReserveMany(int count) {
        StringBuilder values = new StringBuilder();
        for (int i = 0; i < count; i++) {
            if (i > 0) values.append(", ");
            values.append("(").append(i).append(", ?, ?, ?, ?)");
        }
        String now = dialect.now();
        return "WITH v (ord, scope, idem_key, fingerprint, owner_token) AS (VALUES " + values + "), "
                + "ins AS (INSERT INTO " + table + " (scope, idem_key, fingerprint, status, owner_token, lease_expires_at, attempts, "
                + "created_at, updated_at, expires_at) SELECT scope, idem_key, fingerprint, 'IN_FLIGHT', owner_token, "
                + dialect.nowPlusMillis(leaseMillis) + ", 1, " + now + ", " + now + ", " + dialect.nowPlusMillis(ttlMillis)
                + " FROM v " + (vacant == null ? "ORDER BY ord ON CONFLICT (scope, idem_key) DO NOTHING"
                        : "WHERE " + vacant + "(scope, idem_key) ORDER BY ord") + " RETURNING owner_token) "
                + "SELECT v.owner_token AS batch_token, CASE WHEN ins.owner_token IS NULL THEN 0 ELSE 1 END AS inserted, "
                + selectStateColumns.replace("fingerprint, status, owner_token, ", "k.fingerprint, k.status, k.owner_token, ")
                + " FROM v LEFT JOIN ins ON ins.owner_token = v.owner_token LEFT JOIN LATERAL (SELECT * FROM " + table
                + " WHERE ins.owner_token IS NULL AND scope = v.scope AND idem_key = v.idem_key OFFSET 0) k ON TRUE";
    }

    /** One statement renewing {@code count} tokens: each is matched by its primary key and its token. */
    String renew(int count) {
        StringBuilder sql = new StringBuilder(renewPrefix);
        for (int i = 0; i < count; i++) {
            if (i > 0) sql.append(" OR ");
            sql.append("(scope = ? AND idem_key = ? AND owner_token = ?)");
        }
        return sql.append(')').toString();
    }
}
