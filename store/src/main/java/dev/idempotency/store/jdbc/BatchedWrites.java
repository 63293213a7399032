package dev.idempotency.store.jdbc;

import dev.idempotency.store.KeyStatus;
import dev.idempotency.store.OwnershipToken;
import dev.idempotency.store.StoreDataException;
import dev.idempotency.store.StoreException;
import dev.idempotency.store.StoreSettings;
import dev.idempotency.store.StoreUnavailableException;
import dev.idempotency.store.StoredResponse;
import dev.idempotency.store.jdbc.dialect.Dialect;

import java.sql.BatchUpdateException;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

import static dev.idempotency.store.jdbc.PooledWork.ALWAYS;

/**
 * The batches that {@link GroupCommit} hands over: many reservations' first inserts in one statement or transaction,
 * many completions in one transaction, each caller with an outcome of its own whatever fails, and how far a batch got
 * (nothing sent, sent, answered) deciding what a failure can have left behind.
 */
final class BatchedWrites {
    /** Reads a key's state on a connection (the store's {@code selectState}). */
    interface StateReader {
        KeyState read(Connection c, String scope, String key) throws SQLException;
    }

    private final StoreSettings settings;
    private final Dialect dialect;
    private final Sql sql;
    private final StoreConnections connections;
    private final JdbcStatements statements;
    private final KeyRows rows;
    private final StateReader states;

    BatchedWrites(StoreSettings settings, Dialect dialect, Sql sql, StoreConnections connections, JdbcStatements statements,
                  KeyRows rows, StateReader states) {
        this.settings = settings;
        this.dialect = dialect;
        this.sql = sql;
        this.connections = connections;
        this.statements = statements;
        this.rows = rows;
        this.states = states;
    }

    /** A reservation's first insert, waiting for its batch. */
    static final class Candidate {
        final OwnershipToken token;
        final String fingerprint;

        Candidate(OwnershipToken token, String fingerprint) {
            this.token = token;
            this.fingerprint = fingerprint;
        }
    }

    /** A completion waiting for its batch. */
    static final class Completion {
        final OwnershipToken token;
        final StoredResponse response;

        Completion(OwnershipToken token, StoredResponse response) {
            this.token = token;
            this.response = response;
        }

        /** The parameters of {@link Sql#complete} and {@link Sql#replaceResponse}. */
        Object[] parameters() {
            return new Object[] {response.status(), HeaderCodec.encode(response.headers()), response.body(),
                    token.scope(), token.key(), token.token()};
        }
    }

    /** What a reservation's batched first insert found. */
    static final class FirstStep {
        /** Not tried, or rolled back: the reservation starts from its own insert. */
        static final FirstStep NOT_TRIED = new FirstStep(null, false, null, null, null);

        /** The token that now owns the key, when the insert got in. */
        final OwnershipToken acquired;
        /** The insert was refused: the key exists. */
        final boolean present;
        /** The key's state as the batch read it, when it did. */
        final KeyState state;
        /**
         * The token the refused insert carried: should the key turn out to hold it all the same (a driver whose count
         * said less than the database did), it is ours.
         */
        final OwnershipToken tried;
        /** The key's row cannot be read by this version: its caller fails closed, the batch's others are unaffected. */
        final StoreDataException failure;

        private FirstStep(OwnershipToken acquired, boolean present, KeyState state, OwnershipToken tried, StoreDataException failure) {
            this.acquired = acquired;
            this.present = present;
            this.state = state;
            this.tried = tried;
            this.failure = failure;
        }

        static FirstStep acquired(OwnershipToken token) { return new FirstStep(token, false, null, null, null); }

        static FirstStep present(KeyState state, OwnershipToken tried) { return new FirstStep(null, true, state, tried, null); }

        static FirstStep failed(StoreDataException e) { return new FirstStep(null, true, null, null, e); }
    }

    // One order for every batch: two batches never wait for each other's keys in opposite orders (no deadlocks).
    private static final Comparator<OwnershipToken> KEY_ORDER =
            Comparator.comparing(OwnershipToken::scope).thenComparing(OwnershipToken::key);

    // How far a batch got: what a failure can have left behind.
    private static final int NOTHING_SENT = 0;
    private static final int SENT = 1;
    /** The database answered (the statement returned, the transaction committed): its writes stand. */
    private static final int ANSWERED = 2;

    /**
     * The first inserts of many reservations in one statement (PostgreSQL, which also reads back the state of every key
     * it could not insert) or one transaction. A key twice in one batch goes in once; its twin starts on its own. Every
     * caller gets an outcome of its own, whatever fails:
     * <ul>
     * <li>nothing reached the database, or it was rolled back: each reservation starts on its own;</li>
     * <li>the answer was lost: each fails with its own possibly reserved token;</li>
     * <li>the database answered but something after that failed (a row this version cannot read, an unexpected count):
     * the callers with a clear outcome get it; the others look at their key, which is theirs if it holds their token.</li>
     * </ul>
     */
    void firstInserts(List<GroupCommit.Pending<Candidate, FirstStep>> items) {
        List<GroupCommit.Pending<Candidate, FirstStep>> batch = distinctKeys(items, p -> p.item.token);
        int[] phase = {NOTHING_SENT};
        Map<String, FirstStep> found = new HashMap<>();
        try {
            // Repeated with the same tokens on a fresh connection while nothing came back: a key the lost attempt
            // inserted reads as ours.
            connections.inBatchConnection(found::isEmpty, c -> {
                // A key alone: the plain insert. The statement that also reads a refused key's state cost a lone new
                // key 30 % of its throughput on PostgreSQL; a refused one reads the state in a second round trip.
                if (batch.size() == 1) insertAlone(c, batch.get(0).item, phase, found);
                else if (dialect.reservesWithStateInOneStatement()) insertReadingState(c, batch, phase, found);
                else insertAll(c, batch, phase, found);
                return null;
            });
        } catch (SQLException | RuntimeException | Error e) {
            for (GroupCommit.Pending<Candidate, FirstStep> p : batch) {
                OwnershipToken t = p.item.token;
                if (found.containsKey(t.token())) continue;
                if (phase[0] == ANSWERED) {
                    found.put(t.token(), FirstStep.present(null, t));
                } else if (e instanceof SQLException && !Failures.unavailable((SQLException) e)) {
                    found.put(t.token(), FirstStep.NOT_TRIED); // failed or rolled back whole: nothing stays
                } else if (e instanceof SQLException) {
                    p.fail(StoreConnections.translate((SQLException) e, "reserve", phase[0] == SENT ? t : null));
                } else if (phase[0] == SENT) {
                    p.fail(new StoreUnavailableException("idempotency store did not answer a reserve: " + e, e, t));
                } else {
                    p.fail(e instanceof RuntimeException ? (RuntimeException) e : new StoreException("idempotency store failed during reserve: " + e, e));
                }
            }
        } finally {
            for (GroupCommit.Pending<Candidate, FirstStep> p : items) {
                FirstStep step = found.get(p.item.token.token());
                p.succeed(step == null ? FirstStep.NOT_TRIED : step); // twins, and rows the statement could not see
            }
        }
    }

    /** One statement inserting every key it can and reading the state of every other (PostgreSQL). */
    private void insertReadingState(Connection c, List<GroupCommit.Pending<Candidate, FirstStep>> batch, int[] phase,
                                    Map<String, FirstStep> found) throws SQLException {
        Object[] params = new Object[4 * batch.size()];
        int i = 0;
        for (GroupCommit.Pending<Candidate, FirstStep> p : batch) {
            params[i++] = p.item.token.scope();
            params[i++] = p.item.token.key();
            params[i++] = p.item.fingerprint;
            params[i++] = p.item.token.token();
        }
        try (PreparedStatement ps = statements.prepare(c, sql.reserveMany(batch.size()), params)) {
            phase[0] = SENT;
            try (ResultSet rs = dialect.write(ps, PreparedStatement::executeQuery, statements.queryTimeoutNanos)) {
                phase[0] = ANSWERED;
                while (rs.next()) {
                    String token = rs.getString("batch_token");
                    OwnershipToken owned = tokenOf(batch, token);
                    if (rs.getInt("inserted") == 1) {
                        found.put(token, FirstStep.acquired(owned));
                    } else if (rs.getString("status") != null) {
                        try {
                            found.put(token, FirstStep.present(rows.stateOf(rs, owned.scope(), owned.key()), owned));
                        } catch (StoreDataException unreadable) {
                            found.put(token, FirstStep.failed(unreadable)); // that key's caller alone fails closed
                        }
                    }
                    // else refused by a row committed after this statement's snapshot: not visible here, looked at again
                }
            }
        }
    }

    private static OwnershipToken tokenOf(List<GroupCommit.Pending<Candidate, FirstStep>> batch, String token) throws SQLException {
        for (GroupCommit.Pending<Candidate, FirstStep> p : batch) if (p.item.token.token().equals(token)) return p.item.token;
        throw new SQLException("the database answered for a token this batch did not send");
    }

    /** A batch of one: the plain insert in autocommit, as without group commit. */
    private void insertAlone(Connection c, Candidate alone, int[] phase, Map<String, FirstStep> found) throws SQLException {
        OwnershipToken t = alone.token;
        phase[0] = SENT;
        FirstStep step;
        try {
            step = statements.update(c, sql.insert, t.scope(), t.key(), alone.fingerprint, t.token(), settings.lease().toMillis(), settings.ttl().toMillis()) == 1
                    ? FirstStep.acquired(t) : FirstStep.present(null, t);
        } catch (SQLException e) {
            if (!dialect.isDuplicateKey(e)) throw e;
            step = FirstStep.present(null, t);
        }
        phase[0] = ANSWERED;
        found.put(t.token(), step);
    }

    /**
     * Every first insert in one transaction, each with its own update count. A count that says nothing (a driver set to
     * report batches as a whole) leaves the caller to look at its key, which is its own if it holds its token.
     */
    private void insertAll(Connection c, List<GroupCommit.Pending<Candidate, FirstStep>> batch, int[] phase,
                           Map<String, FirstStep> found) throws SQLException {
        List<Object[]> rows = new ArrayList<>(batch.size());
        for (GroupCommit.Pending<Candidate, FirstStep> p : batch) {
            OwnershipToken t = p.item.token;
            rows.add(new Object[] {t.scope(), t.key(), p.item.fingerprint, t.token(), settings.lease().toMillis(), settings.ttl().toMillis()});
        }
        int[] counts = inOneTransaction(c, sql.insert, rows, phase, dialect.refusedInsertKeepsTransaction());
        for (int i = 0; i < batch.size(); i++) {
            OwnershipToken t = batch.get(i).item.token;
            found.put(t.token(), i < counts.length && counts[i] == 1 ? FirstStep.acquired(t) : FirstStep.present(null, t));
        }
    }

    /**
     * Completions together: one transaction, each with its own update count (fencing as in {@link #complete}). A lone
     * completion runs as before, in autocommit. A batch that failed short of the database (or was rolled back) lets each
     * completion run on its own (answered by null); once committed, a count that says nothing is read back from the key.
     */
    void completeTogether(List<GroupCommit.Pending<Completion, Boolean>> items) {
        List<GroupCommit.Pending<Completion, Boolean>> batch = distinctKeys(items, p -> p.item.token);
        int[] phase = {NOTHING_SENT};
        try {
            // Fenced by token, so repeatable on a fresh connection: a completion the lost attempt wrote reads as ours.
            boolean[] won = connections.inBatchConnection(ALWAYS, c -> {
                int[] counts;
                if (batch.size() == 1) {
                    phase[0] = SENT;
                    counts = new int[] {statements.update(c, sql.complete, batch.get(0).item.parameters())};
                    phase[0] = ANSWERED;
                } else {
                    List<Object[]> rows = new ArrayList<>(batch.size());
                    for (GroupCommit.Pending<Completion, Boolean> p : batch) rows.add(p.item.parameters());
                    counts = inOneTransaction(c, sql.complete, rows, phase, false);
                }
                boolean[] outcome = new boolean[batch.size()];
                for (int i = 0; i < outcome.length; i++) {
                    Completion done = batch.get(i).item;
                    outcome[i] = i < counts.length && counts[i] == 1 || recordedBy(c, done);
                }
                return outcome;
            });
            for (int i = 0; i < won.length; i++) batch.get(i).succeed(won[i]);
        } catch (SQLException | RuntimeException | Error e) {
            boolean rolledBack = batch.size() > 1 && phase[0] != ANSWERED && e instanceof SQLException
                    && !Failures.unavailable((SQLException) e);
            for (GroupCommit.Pending<Completion, Boolean> p : batch) {
                if (rolledBack) p.succeed(null); // nothing of the batch stays: each runs on its own
                else if (e instanceof SQLException) p.fail(StoreConnections.translate((SQLException) e, "complete", null));
                else if (phase[0] == NOTHING_SENT && e instanceof RuntimeException) p.fail((RuntimeException) e);
                else p.fail(new StoreUnavailableException("idempotency store did not answer a complete: " + e, e));
            }
        } finally {
            for (GroupCommit.Pending<Completion, Boolean> p : items) p.succeed(null); // twins run on their own
        }
    }

    /**
     * Whether the key already holds exactly this completion: written by an attempt whose answer was lost, or reported
     * as a count that says nothing. Another response on the same token (an earlier attempt's, or an operator's decision
     * that differs) is not this completion: the fenced update lost, and the caller must not send its response. A
     * committing no-op write comes first: on a primary with a synchronous standby it returns only once the completion
     * found is replicated too (or fails as not replicated), so a lost answer never stands for a write a failover loses.
     */
    boolean recordedBy(Connection c, Completion done) throws SQLException {
        if (statements.update(c, sql.touchCompleted, done.token.scope(), done.token.key(), done.token.token()) == 0) return false;
        KeyState state = states.read(c, done.token.scope(), done.token.key());
        return state != null && state.status == KeyStatus.COMPLETED && done.token.token().equals(state.ownerToken)
                && done.response.equals(state.response);
    }

    /**
     * Runs {@code statement} once per row in one transaction and commits; on any failure rolls back, so that nothing of
     * the batch stays. With {@code refusalsKeepTransaction}, rows refused as duplicates count as {@link Statement#EXECUTE_FAILED}
     * and the rest commits (H2 undoes only the refused statement).
     */
    int[] inOneTransaction(Connection c, String statement, List<Object[]> rows, int[] phase,
                                   boolean refusalsKeepTransaction) throws SQLException {
        int[] counts = statements.inTransaction(c, tx -> {
            try (PreparedStatement ps = statements.prepare(tx, statement)) {
                for (Object[] row : rows) {
                    JdbcStatements.bind(ps, row);
                    ps.addBatch();
                }
                phase[0] = SENT;
                try {
                    return ps.executeBatch();
                } catch (BatchUpdateException e) {
                    if (!refusalsKeepTransaction || !onlyDuplicateKeys(e, rows.size())) throw e;
                    return e.getUpdateCounts();
                }
            }
        });
        phase[0] = ANSWERED;
        return counts;
    }

    private boolean onlyDuplicateKeys(BatchUpdateException e, int rows) {
        int[] counts = e.getUpdateCounts();
        if (counts == null || counts.length != rows) return false;
        for (SQLException next = e.getNextException(); next != null; next = next.getNextException()) {
            if (!dialect.isDuplicateKey(next)) return false;
        }
        return dialect.isDuplicateKey(e) || e.getNextException() != null;
    }

    /** The items in key order, each key once; the others stay unsettled for the caller to send on their own. */
    private static <I, R> List<GroupCommit.Pending<I, R>> distinctKeys(List<GroupCommit.Pending<I, R>> items,
                                                                     java.util.function.Function<GroupCommit.Pending<I, R>, OwnershipToken> token) {
        if (items.size() == 1) return items; // a write alone, as most are below the pool size
        List<GroupCommit.Pending<I, R>> sorted = new ArrayList<>(items);
        sorted.sort((a, b) -> KEY_ORDER.compare(token.apply(a), token.apply(b)));
        List<GroupCommit.Pending<I, R>> distinct = new ArrayList<>(sorted.size());
        OwnershipToken previous = null;
        for (GroupCommit.Pending<I, R> p : sorted) {
            OwnershipToken t = token.apply(p);
            if (previous != null && KEY_ORDER.compare(previous, t) == 0) continue;
            distinct.add(p);
            previous = t;
        }
        return distinct;
    }
}
