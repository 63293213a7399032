package dev.idempotency.agent.core.effects;

import dev.idempotency.agent.core.log.AgentLog;
import dev.idempotency.store.EffectMark;
import dev.idempotency.store.KeyReservations;
import dev.idempotency.store.OwnershipToken;
import dev.idempotency.store.StoreException;
import dev.idempotency.store.StoreSettings;
import dev.idempotency.store.jdbc.EffectMarks;

import java.sql.Connection;
import java.sql.SQLException;
import java.util.Collections;
import java.util.HashSet;
import java.util.IdentityHashMap;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The effects of one keyed request, watched on the thread that runs it while it owns its key: which of its JDBC
 * connections reach the store's database and have written in their open transaction, which reads it prepared, and
 * the marks it left. A commit of the store's database gets its mark inside the committing transaction; a write outside
 * a transaction gets one before it; anything else that may have an effect (another database, an outbound call, an XA
 * transaction, work continued on other threads) gets a mark through the store before it starts.
 */
public final class RequestEffects {
    private static final ThreadLocal<RequestEffects> CURRENT = new ThreadLocal<>();
    /**
     * URLs (with the table) found to reach the store's database, by the key a request owned: known from then on. A URL
     * that did not is asked again by each request (a transaction whose snapshot predates the key misses it).
     */
    private static final Set<String> STORE_DATABASE = Collections.newSetFromMap(new ConcurrentHashMap<String, Boolean>());
    private static final Map<String, EffectMarks> MARKS = new ConcurrentHashMap<>();
    private static final java.util.concurrent.atomic.AtomicBoolean ASYNC_REPORTED = new java.util.concurrent.atomic.AtomicBoolean();
    /** Distinct external marks per request: enough to explain; one already decides. */
    private static final int MAX_EXTERNAL_MARKS = 8;

    private final KeyReservations store;
    private final OwnershipToken token;
    private final String table;
    private final String description;
    private final Map<Object, ConnectionState> connections = new IdentityHashMap<>();
    private final Set<Object> readStatements = Collections.newSetFromMap(new IdentityHashMap<Object, Boolean>());
    private final Set<String> externalMarks = new HashSet<>();
    /** Set while the agent runs its own statements on the application's connection: those are not watched. */
    private boolean busy;
    private volatile boolean marked;
    private boolean unwatchedNoted;
    private volatile boolean closed;

    private static final class ConnectionState {
        /** The marks for the store's database; null for a connection to another database. */
        final EffectMarks marks;
        final String url;
        boolean wrote;

        ConnectionState(EffectMarks marks, String url) {
            this.marks = marks;
            this.url = url;
        }
    }

    private RequestEffects(KeyReservations store, OwnershipToken token, String table, String description) {
        this.store = store;
        this.token = token;
        this.table = table;
        this.description = description;
    }

    /** Starts watching the current thread for the request that owns {@code token}. */
    public static RequestEffects watch(KeyReservations store, OwnershipToken token, String table, String description) {
        RequestEffects effects = new RequestEffects(store, token, table, description);
        CURRENT.set(effects);
        return effects;
    }

    /** What the current thread's keyed request watches; null on every other thread. */
    static RequestEffects current() {
        RequestEffects effects = CURRENT.get();
        if (effects == null || effects.busy) return null;
        if (effects.closed) {
            CURRENT.remove();
            return null;
        }
        return effects;
    }

    /** Stops watching the current thread (the request's service call ended here). */
    public static void unwatchCurrentThread() {
        CURRENT.remove();
    }

    /**
     * Whether a mark that forbids a re-run was written (any but a call with a derived key): the request may have had an
     * effect, so its key must not simply be given up.
     */
    public boolean marked() { return marked; }

    /** The request ended: nothing is watched for it any more; on the thread that ran it, the thread is cleared too. */
    public void close() {
        closed = true;
        if (CURRENT.get() == this) CURRENT.remove();
    }

    /**
     * The request continues on threads the agent does not watch (an asynchronous cycle): its effects there cannot be
     * seen, so it is marked as such and, after a crash, its key becomes unknown instead of running again.
     */
    public boolean continuesUnwatched(String how) {
        if (closed || unwatchedNoted) return true;
        if (ASYNC_REPORTED.compareAndSet(false, true)) {
            AgentLog.warn(description + " continues on threads the agent does not watch (" + how + "): such requests fall back to"
                    + " reconcile (after a crash their keys become outcome unknown); said once");
        }
        try {
            external(EffectMark.Kind.UNWATCHED, how);
            unwatchedNoted = true;
            return true;
        } catch (EffectNotMarked | RuntimeException e) {
            AgentLog.error(description + ": could not note that it continues on threads the agent does not watch (" + how + ")", e);
            return false;
        }
    }

    // ---- JDBC

    void beforeWrite(Connection connection) throws SQLException, EffectNotMarked {
        ConnectionState state = stateOf(connection);
        if (state.marks == null) {
            external(EffectMark.Kind.EXTERNAL, "JDBC write to " + state.url);
        } else if (connection.getAutoCommit()) {
            mark(connection, state, EffectMark.Kind.WRITE, "autocommit write");
        } else {
            state.wrote = true;
        }
    }

    void beforeCommit(Connection connection) throws SQLException, EffectNotMarked {
        ConnectionState state = connections.get(connection);
        boolean wrote = state != null && state.wrote;
        if (isPostgres(connection)) {
            // Nothing open, or a failed transaction whose COMMIT rolls back: nothing to mark, and nothing may be run on it.
            // A read-only transaction cannot write: its mark could not even be inserted.
            String transaction = PostgresTransactions.state(connection);
            if ("IDLE".equals(transaction) || "FAILED".equals(transaction) || connection.isReadOnly()) {
                if (state != null) state.wrote = false;
                return;
            }
            if (!wrote && !connection.getAutoCommit()) {
                // the server says whether the transaction wrote, whatever its statements' text said (a function, COPY)
                String url = connection.getMetaData().getURL();
                EffectMarks dialect = url == null ? null : marksFor(url);
                busy = true;
                try {
                    wrote = dialect != null && dialect.transactionWrote(connection);
                } finally {
                    busy = false;
                }
            }
        }
        if (!wrote) return;
        state = stateOf(connection);
        if (state.marks == null) {
            try {
                external(EffectMark.Kind.EXTERNAL, "JDBC commit on " + state.url);
            } catch (EffectNotMarked e) {
                rollBackUnmarked(connection, state);
                throw e;
            }
        } else {
            mark(connection, state, EffectMark.Kind.COMMIT, "commit");
        }
        state.wrote = false;
    }

    /** A DDL statement (MySQL and MariaDB commit what is open before it, and it commits itself): marked as it runs. */
    void beforeImplicitCommitAndWrite(Connection connection, String what) throws SQLException, EffectNotMarked {
        beforeCommit(connection);
        ConnectionState state = stateOf(connection);
        if (state.marks == null) external(EffectMark.Kind.EXTERNAL, "JDBC " + what + " on " + state.url);
        else mark(connection, state, EffectMark.Kind.WRITE, what);
    }

    static boolean isPostgres(Object connection) {
        return connection.getClass().getName().startsWith("org.postgresql.");
    }

    private EffectMarks marksFor(String url) {
        return MARKS.computeIfAbsent(url + '\n' + table, k -> EffectMarks.forUrl(url, table));
    }

    void rolledBack(Object connection) {
        ConnectionState state = connections.get(connection);
        if (state != null) state.wrote = false;
    }

    void preparedRead(Object statement) {
        readStatements.add(statement);
    }

    boolean isPreparedRead(Object statement) {
        return readStatements.contains(statement);
    }

    private ConnectionState stateOf(Connection connection) throws SQLException {
        ConnectionState state = connections.get(connection);
        if (state != null) return state;
        busy = true;
        try {
            String url = connection.getMetaData().getURL();
            EffectMarks marks = url == null ? null : marksFor(url);
            boolean same = marks != null && STORE_DATABASE.contains(url + '\n' + table);
            if (marks != null && !same) {
                same = marks.seesKey(connection, token);
                if (same) STORE_DATABASE.add(url + '\n' + table);
                AgentLog.debug("JDBC connections to " + redacted(url) + (same ? " reach the idempotency store's database: their commits"
                        + " are marked in their own transactions" : " do not reach the idempotency store's database (table " + table
                        + "_effects not seen there): their writes are marked through the store before they run"));
            }
            state = new ConnectionState(same ? marks : null, redacted(url));
        } finally {
            busy = false;
        }
        connections.put(connection, state);
        return state;
    }

    private void mark(Connection connection, ConnectionState state, EffectMark.Kind kind, String detail) throws SQLException {
        boolean written;
        busy = true;
        try {
            try {
                written = state.marks.mark(connection, token, kind, detail);
            } catch (SQLException e) {
                rollBackUnmarked(connection, state);
                throw new SQLException("idempotency agent: could not mark this request's " + detail + " in table " + table + "_effects ("
                        + e.getMessage() + "); the application's database user needs SELECT and UPDATE (PostgreSQL, MySQL: for the row"
                        + " lock) on " + table + " and INSERT on " + table + "_effects; the transaction was rolled back", e.getSQLState(), e);
            }
            if (!written) {
                rollBackUnmarked(connection, state);
                throw new SQLException("idempotency agent: this request no longer owns its idempotency key (its lease ran out and"
                        + " the key moved on); its " + detail + " is refused and its transaction rolled back, so that the work cannot"
                        + " happen twice", "40001");
            }
        } finally {
            busy = false;
        }
        marked = true;
    }

    /**
     * A transaction whose mark was refused must not commit later either (a pool that commits on return, an application
     * that swallows the exception and commits again): what it holds is rolled back here.
     */
    private static void rollBackUnmarked(Connection connection, ConnectionState state) {
        state.wrote = false;
        try {
            if (!connection.getAutoCommit()) connection.rollback();
        } catch (SQLException | RuntimeException e) {
            AgentLog.warn("could not roll back a transaction whose effect mark was refused: " + e);
        }
    }

    /** A mark through the store, before an effect the store's database cannot make atomic with its key. */
    void external(EffectMark.Kind kind, String detail) throws EffectNotMarked {
        String id = kind + " " + detail;
        boolean keyed = kind == EffectMark.Kind.KEYED_CALL;
        // Past a handful, a mark changes no decision: once one that forbids a re-run is written, the key cannot run again;
        // a call with a derived key is as safe to repeat unmarked as marked. Any other mark is always written.
        if (externalMarks.contains(id) || externalMarks.size() >= MAX_EXTERNAL_MARKS && (keyed || marked)) return;
        boolean written;
        busy = true;
        try {
            written = store.recordEffect(token, kind, detail);
        } catch (StoreException e) {
            throw new EffectNotMarked(description + ": the idempotency store could not note that this request is about to cause an"
                    + " effect (" + detail + "): " + e.getMessage() + "; the effect is refused so that a retry cannot repeat it", e);
        } finally {
            busy = false;
        }
        if (!written) {
            throw new EffectNotMarked(description + ": this request no longer owns its idempotency key; its " + detail
                    + " is refused so that the work cannot happen twice", null);
        }
        externalMarks.add(id);
        if (!keyed) marked = true;
    }

    /** An effect could not be marked, and so must not happen. */
    static final class EffectNotMarked extends Exception {
        private static final long serialVersionUID = 1L;

        EffectNotMarked(String message, Throwable cause) {
            super(message, cause);
        }
    }

    private static String redacted(String url) {
        return url == null ? "" : StoreSettings.redacted(url);
    }
}
