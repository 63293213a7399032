package dev.idempotency.store.jdbc.dialect;

import dev.idempotency.store.StoreConfigurationException;
import dev.idempotency.store.StoreSettings;

import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Instant;
import java.util.Properties;

/**
 * What differs between databases: time arithmetic on the database's own clock, the conflict-free insert, bounded
 * batch statements, driver timeouts and the shipped DDL. Everything else is plain SQL shared by all.
 */
public abstract class Dialect {

    /** Chooses the dialect from the JDBC URL. */
    public static Dialect forUrl(String url) {
        String lower = url.toLowerCase(java.util.Locale.ROOT);
        if (lower.startsWith("jdbc:postgresql:")) return new PostgresDialect();
        if (lower.startsWith("jdbc:mariadb:") || lower.startsWith("jdbc:mysql:")) return new MySqlDialect(lower.startsWith("jdbc:mysql:"));
        if (lower.startsWith("jdbc:h2:")) return new H2Dialect();
        throw new StoreConfigurationException("unsupported JDBC URL '" + StoreSettings.redacted(url)
                + "'; expected jdbc:postgresql:, jdbc:mariadb:, jdbc:mysql: or jdbc:h2:");
    }

    /** The dialect by its name: postgresql, mariadb, mysql or h2. */
    public static Dialect named(String name) {
        String lower = name.trim().toLowerCase(java.util.Locale.ROOT);
        switch (lower) {
            case "postgresql": case "postgres": return new PostgresDialect();
            case "mariadb": return new MySqlDialect(false);
            case "mysql": return new MySqlDialect(true);
            case "h2": return new H2Dialect();
            default: throw new StoreConfigurationException("unknown database '" + name + "'; expected postgresql, mariadb, mysql or h2");
        }
    }

    /** Short name, also the base name of the shipped DDL resource. */
    public abstract String name();

    /** What an operator of a store at this URL should know (see {@code KeyUpkeep.cautions}), or null. */
    public String caution(String url) {
        return null;
    }

    /** The JDBC driver class this store instantiates directly (never through DriverManager). */
    public abstract String driverClassName();

    /** Driver connection properties carrying the connect and network timeouts. */
    public abstract Properties driverProperties(StoreSettings settings);

    /** The database's current time as an SQL expression. */
    public abstract String now();

    /** The database's current time plus a number of milliseconds given as one {@code ?} parameter. */
    public abstract String nowPlusMillisParameter();

    /** Milliseconds from the database's current time until the timestamp column (negative once past). */
    public abstract String millisUntil(String column);

    /** The database's current time plus a fixed number of milliseconds (a validated setting, never request data). */
    public String nowPlusMillis(long millis) {
        return nowPlusMillisParameter().replace("?", Long.toString(millis));
    }

    /**
     * An insert that does nothing (update count 0) when a row with the same {@code primaryKey} columns exists,
     * instead of failing.
     */
    public abstract String insertIfAbsent(String table, String columns, String values, String primaryKey);

    /**
     * Whether one statement can insert many keys and read back the state of those it could not insert (PostgreSQL's
     * data-modifying WITH); elsewhere batched inserts answer with update counts and states are read afterwards.
     */
    public boolean reservesWithStateInOneStatement() {
        return false;
    }

    /** Whether the key table can be kept in time partitions dropped whole when their keys expired. */
    public boolean partitionsByTime() {
        return false;
    }

    /**
     * Whether a locking read sees the latest committed rows at any isolation level (InnoDB), so an expired lease is
     * decided at the session's own level; elsewhere it is decided under read committed.
     */
    public boolean lockingReadsSeeLatestRows() {
        return false;
    }

    /**
     * A query answering 1 when the current transaction has written anything, whatever the way (a function, COPY, a
     * rule), and 0 otherwise; null where the database cannot tell.
     */
    public String transactionWroteQuery() {
        return null;
    }

    /** Whether a refused insert in a transaction undoes only itself, leaving the transaction to commit (H2). */
    public boolean refusedInsertKeepsTransaction() {
        return false;
    }

    /** Whether this exception is the duplicate-key conflict that {@link #insertIfAbsent} could not absorb. */
    public boolean isDuplicateKey(SQLException e) {
        return "23505".equals(e.getSQLState()) || "23000".equals(e.getSQLState()) && e.getErrorCode() == 1062;
    }

    /** An update of at most {@code limit} rows matching {@code where}, taking no lock on rows that other statements hold. */
    public abstract String limitedUpdate(String table, String set, String where, int limit);

    /** A delete of at most {@code limit} rows matching {@code where}. */
    public abstract String limitedDelete(String table, String where, int limit);

    /**
     * Clause that makes a select lock the rows it reads against updates until its transaction ends, reading their
     * latest committed version: where {@code FOR SHARE} exists, shared.
     */
    public String shareLockClause() {
        return " FOR SHARE";
    }

    /**
     * The statement that begins a batch's transaction, which then ends with COMMIT or ROLLBACK statements; null where
     * the transaction is begun by turning autocommit off (and ended by the driver's commit and rollback).
     */
    public String beginStatement() {
        return null;
    }

    /**
     * A statement that, run first in a transaction, lets the queries after it scan whole tables where the store's
     * connections otherwise never do (see PostgreSQL's); null where nothing needs saying.
     */
    public String allowSequentialScans() {
        return null;
    }

    /** The schema unqualified table names resolve to on a connection, as an SQL expression. */
    public abstract String currentSchema();

    /** Clause appended to an ordered select to return at most one {@code ?} parameter's rows. */
    public String limitParameter() {
        return " FETCH FIRST ? ROWS ONLY";
    }

    /**
     * A statement that, run first in the DDL transaction, makes nodes creating the schema at once wait for each other;
     * null where the dialect's DDL is safe to race.
     */
    public String schemaLockStatement(String table) {
        return null;
    }

    /**
     * Resource of the statements that bring a table of schema version {@code from} to {@code from + 1} before the
     * shipped DDL runs; null when the shipped DDL alone does it (it only adds what is absent).
     */
    public String upgradeResource(int from) {
        return null;
    }

    /**
     * Statements that give an existing key table the shipped DDL's indexes in place of an earlier release's, run after
     * the shipped DDL by {@code schema=create}; none where that DDL does it itself ({@code DROP INDEX IF EXISTS}).
     */
    public java.util.List<String> indexChanges(java.sql.Connection connection, String table) throws SQLException {
        return java.util.Collections.emptyList();
    }

    /**
     * What is wrong with the types of an existing table's columns, one line per column (which column, what it is, what
     * it must be); empty when nothing is. Only dialects whose column types can silently break byte-for-byte comparison
     * look.
     */
    public java.util.List<String> columnProblems(java.sql.Connection connection, String table) throws SQLException {
        return java.util.Collections.emptyList();
    }

    /** One execution of a statement. */
    public interface Execution<S extends java.sql.Statement, T> {
        T run(S statement) throws SQLException;
    }

    /**
     * Runs a statement that writes (and, in autocommit, commits), failing it with {@link #NOT_REPLICATED} where the
     * database says the write is not durable where it must be (see {@link #requireReplicated}, {@link #replicationFailure}).
     */
    public final <S extends java.sql.Statement, T> T write(S statement, Execution<S, T> execution, long timeoutNanos) throws SQLException {
        long started = System.nanoTime();
        T result;
        try {
            result = execution.run(statement);
        } catch (SQLException e) {
            throw replicationFailure(statement, e);
        }
        requireReplicated(statement, System.nanoTime() - started, timeoutNanos);
        return result;
    }

    /**
     * Fails a write the database answered only with a warning that it is not durable where it must be: a primary whose
     * synchronous standby did not confirm the commit before the statement was cancelled at its timeout.
     */
    protected void requireReplicated(java.sql.Statement statement, long elapsedNanos, long timeoutNanos) throws SQLException {
    }

    /**
     * What a failed write means: a server that said it cancelled the wait for its synchronous standby before it failed
     * (an administrator ended the session) committed the write on the primary only; otherwise the failure itself.
     */
    protected SQLException replicationFailure(java.sql.Statement statement, SQLException failure) {
        return failure;
    }

    /** Gives a statement the query timeout (see {@link H2Dialect}, which gives it to the session instead). */
    public void limitTime(java.sql.Statement statement, int timeoutSeconds) throws SQLException {
        statement.setQueryTimeout(timeoutSeconds);
    }

    /**
     * Whether the store cancels this database's statements at the query timeout from a watchdog of its own instead of
     * {@link #limitTime} (see {@link PostgresDialect}).
     */
    public boolean cancelsFromWatchdog() {
        return false;
    }

    /** Holds one statement to the query timeout, the way the store does for this database. */
    public interface TimeLimit {
        void apply(java.sql.Statement statement) throws SQLException;
    }

    /** Commits the connection's transaction, cancelled on the server if it takes longer than the timeout. */
    public void commit(java.sql.Connection connection, TimeLimit limit, long timeoutNanos) throws SQLException {
        connection.commit();
    }

    /** Reads a timestamp column written by {@link #now()} arithmetic. */
    public abstract Instant readInstant(ResultSet rs, String column) throws SQLException;

    /**
     * How long the driver waits on the network beyond the query timeout: the server's own cancellation (which frees its
     * process) comes first, and a server that no longer answers at all is given up this much later.
     */
    public static final int NETWORK_GRACE_SECONDS = 2;

    /**
     * SQL state of a write the database committed locally but its synchronous standby never confirmed (the wait was
     * cancelled): a failover may lose it, so its outcome is unknown. Class 08, in the implementation-defined range.
     */
    public static final String NOT_REPLICATED = "08R01";

    /** How long a statement waits for a row lock: half the network timeout, so that it fails as itself first. */
    static long lockTimeoutMillis(StoreSettings settings) {
        return Math.max(500, settings.queryTimeout().toMillis() / 2);
    }

    /** A duration in whole seconds, rounded up, at least one: what JDBC's query timeout takes. */
    public static int seconds(java.time.Duration d) {
        return (int) Math.max(1, (d.toMillis() + 999) / 1000);
    }

    @Override
    public String toString() { return name(); }
}
