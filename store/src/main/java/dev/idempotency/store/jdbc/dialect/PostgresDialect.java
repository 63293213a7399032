package dev.idempotency.store.jdbc.dialect;

import dev.idempotency.store.StoreSettings;

import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLWarning;
import java.sql.Statement;
import java.sql.SQLException;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.util.Properties;

final class PostgresDialect extends Dialect {

    @Override public String name() { return "postgresql"; }

    @Override public String driverClassName() { return "org.postgresql.Driver"; }

    @Override
    public Properties driverProperties(StoreSettings settings) {
        Properties p = new Properties();
        p.setProperty("connectTimeout", String.valueOf(seconds(settings.connectTimeout())));
        p.setProperty("loginTimeout", String.valueOf(seconds(settings.connectTimeout())));
        p.setProperty("socketTimeout", String.valueOf(seconds(settings.queryTimeout()) + NETWORK_GRACE_SECONDS));
        // The cancel at the query timeout must reach the server before the network timeout gives the connection up
        // (after which the server process it would free is out of reach); the driver's default waits 10 s for it.
        p.setProperty("cancelSignalTimeout", "1");
        // Every statement of the store writes or precedes a write: with a multi-host URL, connect to the primary only,
        // never to a standby (an old primary back as one after a failover). A URL that says otherwise wins.
        p.setProperty("targetServerType", "primary");
        p.setProperty("tcpKeepAlive", "true");
        p.setProperty("ApplicationName", "idempotency-store");
        // A row lock held elsewhere (an operator's open transaction) fails a statement fast instead of holding a whole
        // group commit, and the keys batched with it, until the network timeout; each then runs on its own.
        // Every statement of a keyed request finds its row by key, and the housekeeping's by a partial index. The
        // driver prepares a statement after a few uses and the server keeps its plan: planned while the table was
        // small (new, or just analyzed with a few rows), that plan is a sequential scan, kept while the table grows
        // until the next analyze. Without sequential scans the plan is the index at any size; the operator queries
        // that read the whole table allow them for their own transaction (allowSequentialScans).
        p.setProperty("options", "-c lock_timeout=" + lockTimeoutMillis(settings) + " -c enable_seqscan=off");
        return p;
    }

    // In autocommit CURRENT_TIMESTAMP is the statement's start: one consistent instant per statement.
    @Override public String now() { return "CURRENT_TIMESTAMP"; }

    @Override public String nowPlusMillisParameter() { return "(CURRENT_TIMESTAMP + CAST(? AS BIGINT) * INTERVAL '1 millisecond')"; }

    @Override public String millisUntil(String column) {
        return "CAST(EXTRACT(EPOCH FROM (" + column + " - CURRENT_TIMESTAMP)) * 1000 AS BIGINT)";
    }

    @Override
    public String insertIfAbsent(String table, String columns, String values, String primaryKey) {
        return "INSERT INTO " + table + " (" + columns + ") VALUES (" + values + ") ON CONFLICT (" + primaryKey + ") DO NOTHING";
    }

    @Override public boolean reservesWithStateInOneStatement() { return true; }

    @Override public String allowSequentialScans() { return "SET LOCAL enable_seqscan = on"; }

    @Override public boolean partitionsByTime() { return true; }
    // PostgreSQL assigns a transaction id at the first write of any kind: 9.6 and later
    @Override public String transactionWroteQuery() { return "SELECT CASE WHEN txid_current_if_assigned() IS NULL THEN 0 ELSE 1 END"; }

    @Override
    public String limitedUpdate(String table, String set, String where, int limit) {
        return batchOf(table, where, limit) + "UPDATE " + table + " SET " + set + " WHERE " + where + inBatch();
    }

    @Override
    public String limitedDelete(String table, String where, int limit) {
        return batchOf(table, where, limit) + "DELETE FROM " + table + " WHERE " + where + inBatch();
    }

    // The batch is read once (a materialised WITH): under IN (...) the planner may run a limited select again for each
    // outer row, and the batch grew past its limit (measured: a purge of batch size 2 deleted 5 rows in one statement).
    // A row is named by its ctid and its table: ctids repeat across a partitioned table's partitions. The ctid list
    // keeps the fast scan by row address; the pair then takes exactly the rows the batch locked.
    private static String batchOf(String table, String where, int limit) {
        return "WITH batch AS MATERIALIZED (SELECT tableoid AS part, ctid AS row_id FROM " + table + " WHERE " + where
                + " LIMIT " + limit + " FOR UPDATE SKIP LOCKED) ";
    }

    private static String inBatch() {
        return " AND ctid = ANY(ARRAY(SELECT row_id FROM batch)) AND (tableoid, ctid) IN (SELECT part, row_id FROM batch)";
    }

    // CREATE ... IF NOT EXISTS races on the catalog's unique indexes in PostgreSQL; its DDL is transactional, so a
    // transaction-scoped advisory lock serialises the nodes.
    @Override
    public String schemaLockStatement(String table) {
        return "SELECT pg_advisory_xact_lock(hashtext('idempotency-schema:" + table + "'))";
    }

    @Override
    public Instant readInstant(ResultSet rs, String column) throws SQLException {
        OffsetDateTime value = rs.getObject(column, OffsetDateTime.class);
        return value == null ? null : value.toInstant();
    }

    @Override public String currentSchema() { return "current_schema()"; }

    /*
     * A commit waiting for a synchronous standby that does not answer ignores statement_timeout; the driver's cancel at
     * the query timeout ends the wait, and the server then reports success with a warning: committed here, perhaps
     * not on the standby. A failover may lose such a write, so it counts as not done. The message is matched, and, for
     * servers speaking another language, any warning on a write that outlived its timeout.
     */
    @Override
    protected void requireReplicated(Statement statement, long elapsedNanos, long timeoutNanos) throws SQLException {
        for (SQLWarning w = statement.getWarnings(); w != null; w = w.getNextWarning()) {
            String message = String.valueOf(w.getMessage());
            if (message.contains("synchronous replication") || elapsedNanos >= timeoutNanos) {
                throw new SQLException("the database committed a write locally but cancelled the wait for its synchronous "
                        + "standby after the query timeout, so a failover may lose it: " + message, NOT_REPLICATED);
            }
        }
    }

    @Override
    protected SQLException replicationFailure(Statement statement, SQLException failure) {
        try {
            for (SQLWarning w = statement.getWarnings(); w != null; w = w.getNextWarning()) {
                // 57P01 is the warning of a session ended while it waited, in every language the server may speak.
                if ("57P01".equals(w.getSQLState()) || String.valueOf(w.getMessage()).contains("synchronous replication")) {
                    return new SQLException("the database committed a write locally, then ended the session while it waited for"
                            + " its synchronous standby, so a failover may lose it: " + w.getMessage(), NOT_REPLICATED, failure);
                }
            }
        } catch (SQLException unreadable) {
            failure.addSuppressed(unreadable);
        }
        return failure;
    }

    // Connection.commit() carries no timeout: COMMIT as a statement does, so that a commit waiting for a standby is
    // cancelled like any other statement instead of holding its server process until the standby returns.
    @Override
    public void commit(Connection connection, TimeLimit limit, long timeoutNanos) throws SQLException {
        try (Statement s = connection.createStatement()) {
            limit.apply(s);
            write(s, statement -> statement.execute("COMMIT"), timeoutNanos);
        }
    }

    /*
     * The driver's query timeout puts a task on its shared timer for every statement and wakes the timer's thread each
     * time: measured at 3.4 % of the JVM's CPU under keyed requests at one connection. The store's watchdog cancels
     * with the same Statement.cancel. statement_timeout on the server would not do: a commit waiting for a synchronous
     * standby ignores it (see requireReplicated), only a cancel ends that wait.
     */
    @Override public boolean cancelsFromWatchdog() { return true; }
}
