package dev.idempotency.store.jdbc;

import dev.idempotency.store.EffectMark;
import dev.idempotency.store.ExpiredLeasePolicy;
import dev.idempotency.store.IdempotencyStore;
import dev.idempotency.store.KeyQuery;
import dev.idempotency.store.KeyRecord;
import dev.idempotency.store.KeyStatus;
import dev.idempotency.store.OwnershipToken;
import dev.idempotency.store.Reservation;
import dev.idempotency.store.SchemaMode;
import dev.idempotency.store.StoreConfigurationException;
import dev.idempotency.store.StoreSettings;
import dev.idempotency.store.StoredResponse;
import dev.idempotency.store.jdbc.BatchedWrites.Candidate;
import dev.idempotency.store.jdbc.BatchedWrites.Completion;
import dev.idempotency.store.jdbc.BatchedWrites.FirstStep;
import dev.idempotency.store.jdbc.StoreConnections.Sent;
import dev.idempotency.store.jdbc.dialect.Dialect;

import java.sql.Connection;
import java.sql.SQLException;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.function.IntConsumer;

import static dev.idempotency.store.jdbc.PooledWork.ALWAYS;

/**
 * {@link IdempotencyStore} on PostgreSQL, MariaDB/MySQL or H2, in autocommit: the life of a key on the request path
 * (reservation, completion, release, renewal, effect marks, the installation secret). Its parts:
 * {@link ReservationRounds} (a reservation's decision after its first insert), {@link StoreConnections} (the request
 * and background pools), {@link BatchedWrites} (the batches group commit hands
 * over), {@link ExpiredKeys} (expired leases and keys: the decision by effect marks, the sweep, the purge),
 * {@link JdbcStatements} (statements held to the query timeout), {@link KeyRows} (rows as the store's types),
 * {@link JdbcKeyAdministration} (the operator's queries and resolutions), {@link Sql} and the dialect.
 */
public final class JdbcIdempotencyStore implements IdempotencyStore {

    /** Longest scope, key or fingerprint the schema holds. */
    public static final int MAX_IDENTIFIER_LENGTH = 255;
    private static final int MAX_FINGERPRINT_LENGTH = 128;
    private static final int RENEW_CHUNK = 200;
    /** Most writes one group commit carries: bounds the statement's size and the time its first caller waits. */
    private static final int MAX_GROUP = 64;
    /** One connection for housekeeping, one always left for the heartbeat's renewals. */
    private static final int BACKGROUND_POOL_SIZE = 2;

    private final StoreSettings settings;
    private final Dialect dialect;
    private final Sql sql;
    /** First inserts of new keys, shared among concurrent reservations; null with group commit off. */
    private final GroupCommit<Candidate, FirstStep> reservations;
    /** Completions, shared likewise. */
    private final GroupCommit<Completion, Boolean> completions;
    /** Effect marks the store writes itself, on its own connections. */
    private final EffectMarks effectMarks;
    private volatile boolean schemaReady;
    /** Whether the effect table exists to be purged (under {@link ExpiredLeasePolicy#TRANSACTION} it must). */
    private final boolean markedEffects;
    private final InstallationSecret secret;
    private final WriteLoad writeLoad;
    /** Keys completed or replayed here lately: their retries read the key first ({@link RecentlyCompleted}). */
    private final RecentlyCompleted recent = new RecentlyCompleted();
    private final JdbcStatements statements;
    private final KeyRows rows;
    private final BatchedWrites batches;
    private final ExpiredKeys expiredKeys;
    private final ReservationRounds rounds;
    private final JdbcKeyAdministration administration;
    private final StoreConnections connections;
    /** The key table's time partitions; null for one plain table. */
    private final TimePartitions partitions;

    private JdbcIdempotencyStore(StoreSettings settings) {
        this.settings = settings;
        this.dialect = Dialect.forUrl(settings.url());
        String refused = JdbcSettings.refusal(settings);
        if (refused != null) throw new StoreConfigurationException(refused);
        this.partitions = settings.partitioning() == null ? null
                : new TimePartitions(dialect, settings.table(), settings.partitioning(), settings.ttl(),
                Dialect.seconds(settings.queryTimeout()), settings.batchSize());
        this.sql = new Sql(dialect, settings.table(), settings.batchSize(), settings.unknownRetention().toMillis(),
                settings.lease().toMillis(), settings.ttl().toMillis(), partitions != null);
        this.effectMarks = EffectMarks.of(dialect, settings.table());
        this.markedEffects = settings.expiredLeasePolicy() == ExpiredLeasePolicy.TRANSACTION;
        this.connections = new StoreConnections(settings, dialect, BACKGROUND_POOL_SIZE, c -> {
            if (!schemaReady) ensureSchema(c);
        });
        this.statements = new JdbcStatements(dialect, settings.queryTimeout());
        this.secret = new InstallationSecret(connections, statements, dialect, sql, settings.table());
        this.rows = new KeyRows(dialect, settings.table());
        this.expiredKeys = new ExpiredKeys(settings, dialect, sql, connections, statements, partitions, markedEffects);
        this.rounds = new ReservationRounds(settings, dialect, sql, statements, rows, partitions, expiredKeys);
        this.batches = new BatchedWrites(settings, dialect, sql, connections, statements, rows, rounds::readState);
        this.administration = new JdbcKeyAdministration(settings, dialect, sql, connections, statements, rows,
                markedEffects);
        int lanes = groupCommitLanes(settings.poolSize());
        // A caller waits for its batch no longer than it would have waited for a connection and a statement.
        long maxWait = settings.connectTimeout().plus(settings.queryTimeout()).toNanos();
        this.writeLoad = new WriteLoad(settings.poolSize(), lanes);
        this.reservations = settings.groupCommit()
                ? new GroupCommit<>("reserve", lanes, MAX_GROUP, maxWait, batches::firstInserts) : null;
        this.completions = settings.groupCommit()
                ? new GroupCommit<>("complete", lanes, MAX_GROUP, maxWait, batches::completeTogether) : null;
    }

    /**
     * Batches of each kind that may run at once. Two keep the database busy while the next batch forms (one runs, the
     * other commits), and leave connections for the rounds that follow a refused insert; a pool of one or two has fewer.
     */
    static int groupCommitLanes(int poolSize) {
        return Math.max(1, Math.min(2, poolSize / 2));
    }

    /** Opens the store without touching the database: connections and the schema come on first use. */
    public static JdbcIdempotencyStore open(StoreSettings settings) {
        return new JdbcIdempotencyStore(Objects.requireNonNull(settings, "settings"));
    }

    public StoreSettings settings() { return settings; }

    @Override public String dialectName() { return dialect.name(); }

    @Override
    public List<String> cautions() {
        String caution = dialect.caution(settings.url());
        return caution == null ? Collections.<String>emptyList() : Collections.singletonList(caution);
    }

    /** Connects and applies the schema mode now, instead of on first use. */
    @Override
    public void checkSchema() {
        connections.repeatably("check schema", c -> null);
    }

    @Override
    public Reservation reserve(String scope, String key, String fingerprint) {
        requireIdentity(scope, key);
        requireLength("fingerprint", fingerprint, MAX_FINGERPRINT_LENGTH);
        boolean batched = writeLoad.start();
        try {
            Reservation r = reserve(scope, key, fingerprint, batched);
            if (r.outcome() == Reservation.Outcome.REPLAY) recent.remember(scope, key);
            return r;
        } finally {
            writeLoad.end();
        }
    }

    private Reservation reserve(String scope, String key, String fingerprint, boolean batched) {
        if (recent.mayHold(scope, key)) {
            // Most likely a retry of a request this JVM answered: the key's state in one read answers it (a read, so
            // tried again on a fresh connection). Not in a batch: a read holds its connection briefly, and a batch of
            // one would insert first.
            KeyState state = connections.withConnection(connections.requestPool(), "reserve", null, PooledWork.ALWAYS,
                    c -> rounds.readState(c, scope, key));
            Reservation answered = state == null ? null : ReservationRounds.answerWithoutWriting(state, fingerprint);
            if (answered != null) return answered;
        }
        FirstStep first;
        if (reservations == null) {
            first = FirstStep.NOT_TRIED;
        } else {
            Candidate candidate = new Candidate(OwnershipToken.fresh(scope, key), fingerprint);
            first = batched ? reservations.submit(candidate) : GroupCommit.alone("reserve", candidate, batches::firstInserts);
        }
        if (first.acquired != null) return Reservation.acquired(first.acquired);
        if (first.failure != null) throw first.failure;
        if (first.state != null && first.state.ownedBy(first.tried)) return Reservation.acquired(first.tried);
        Reservation answered = first.state == null ? null : ReservationRounds.answerWithoutWriting(first.state, fingerprint);
        if (answered != null) return answered; // a replay, a mismatch, a 409: the batch's one round trip was all it took
        // The token of a write whose answer is outstanding: if the answer is lost, the key may be ours, and the caller
        // needs the token to give it back.
        Sent sent = new Sent();
        return connections.withConnection(connections.requestPool(), "reserve", sent,
                c -> rounds.decide(c, sent, scope, key, fingerprint, first));
    }

    @Override
    public boolean complete(OwnershipToken token, StoredResponse response) {
        Objects.requireNonNull(token, "token");
        Objects.requireNonNull(response, "response");
        Completion done = new Completion(token, response);
        boolean batched = writeLoad.start();
        try {
            Boolean together = null;
            if (completions != null) {
                together = batched ? completions.submit(done)
                        : GroupCommit.alone("complete", done, batches::completeTogether);
            }
            boolean won = together != null ? together : connections.repeatably("complete",
                    c -> statements.update(c, sql.complete, done.parameters()) == 1 || batches.recordedBy(c, done));
            if (won) recent.remember(token.scope(), token.key());
            return won;
        } finally {
            writeLoad.end();
        }
    }

    @Override
    public boolean replaceResponse(OwnershipToken token, StoredResponse response) {
        Objects.requireNonNull(token, "token");
        Objects.requireNonNull(response, "response");
        Object[] parameters = new Completion(token, response).parameters();
        return connections.repeatably("replace response", c -> statements.update(c, sql.replaceResponse, parameters) == 1);
    }

    @Override
    public boolean release(OwnershipToken token) {
        Objects.requireNonNull(token, "token");
        return connections.withConnection("release", StoreConnections.onceMoreOnConflict(
                c -> statements.update(c, sql.release, token.scope(), token.key(), token.token()) == 1));
    }

    @Override
    public int renew(Collection<OwnershipToken> tokens) {
        if (tokens.isEmpty()) return 0;
        List<OwnershipToken> all = new ArrayList<>(tokens);
        return connections.withConnection(connections.backgroundPool(), "renew", null, ALWAYS, c -> {
            int renewed = 0;
            for (int from = 0; from < all.size(); from += RENEW_CHUNK) {
                List<OwnershipToken> chunk = all.subList(from, Math.min(all.size(), from + RENEW_CHUNK));
                Object[] params = new Object[1 + 3 * chunk.size()];
                params[0] = settings.lease().toMillis();
                int i = 1;
                for (OwnershipToken t : chunk) {
                    params[i++] = t.scope();
                    params[i++] = t.key();
                    params[i++] = t.token();
                }
                renewed += statements.update(c, sql.renew(chunk.size()), params);
            }
            return renewed;
        });
    }

    @Override
    public boolean recordEffect(OwnershipToken token, EffectMark.Kind kind, String detail) {
        Objects.requireNonNull(token, "token");
        Objects.requireNonNull(kind, "kind");
        return connections.withConnection("record an effect", c -> effectMarks.mark(c, token, kind, detail));
    }

    @Override
    public int sweepExpiredLeases() {
        return expiredKeys.sweepExpiredLeases();
    }

    @Override
    public int purgeExpired(IntConsumer afterEachBatch) {
        return expiredKeys.purgeExpired(afterEachBatch);
    }

    @Override
    public byte[] installationSecret() {
        return secret.get();
    }

    /** Connections of the request pool lent out now (not the background pool's). */
    @Override
    public int connectionsInUse() {
        com.zaxxer.hikari.HikariPoolMXBean figures = connections.requestPool().getHikariPoolMXBean();
        return figures == null ? 0 : figures.getActiveConnections();
    }

    /** How much group commit shared reservations and completions so far (zero batches with it off). */
    public GroupCommitFigures reservationFigures() {
        return reservations == null ? new GroupCommitFigures(0, 0, 0) : reservations.figures();
    }

    public GroupCommitFigures completionFigures() {
        return completions == null ? new GroupCommitFigures(0, 0, 0) : completions.figures();
    }

    @Override
    public Optional<KeyRecord> find(String scope, String key) {
        return administration.find(scope, key);
    }

    @Override
    public List<KeyRecord> list(KeyQuery query) {
        return administration.list(query);
    }

    @Override
    public Map<KeyStatus, Long> countByStatus() {
        return administration.countByStatus();
    }

    @Override
    public Instant databaseTime() {
        return administration.databaseTime();
    }

    /**
     * What the store's database user may not do that the store needs, one line each; empty when everything works.
     * Inserts, updates and deletes a probe row in a transaction that is rolled back; with {@code ddl}, also creates and
     * drops a probe table (schema mode create needs that).
     */
    public List<String> privilegeProblems(boolean ddl) {
        return administration.privilegeProblems(ddl);
    }

    /** Whether the key table exists and can be read (a store opened with schema mode none does no more than ask). */
    public boolean tableExists() {
        return administration.tableExists();
    }

    /** {@link #privilegeProblems} for a table that does not exist yet: only whether it could be created. */
    public List<String> creationProblems() {
        return administration.creationProblems();
    }

    @Override
    public boolean resolveForRetry(String scope, String key) {
        return administration.resolveForRetry(scope, key);
    }

    @Override
    public boolean resolveAsCompleted(String scope, String key, StoredResponse response) {
        return administration.resolveAsCompleted(scope, key, response);
    }

    @Override
    public boolean delete(String scope, String key) {
        return administration.delete(scope, key);
    }

    @Override
    public void close() {
        try {
            connections.close();
        } finally {
            statements.close();
        }
    }

    /** Package-private for {@code BatchTransactionTest}: {@link BatchedWrites#inOneTransaction}. */
    int[] inOneTransaction(Connection c, String statement, List<Object[]> rows, int[] phase,
                           boolean refusalsKeepTransaction) throws SQLException {
        return batches.inOneTransaction(c, statement, rows, phase, refusalsKeepTransaction);
    }

    // ---- schema

    private synchronized void ensureSchema(Connection c) throws SQLException {
        if (schemaReady) return;
        SchemaManager.apply(c, dialect, settings.table(), settings.schemaMode(), markedEffects, settings.partitioning(),
                statements::limitTime, statements.queryTimeoutNanos);
        if (partitions != null && settings.schemaMode() != SchemaMode.NONE) {
            try {
                partitions.createAhead(c);
            } catch (SQLException e) {
                if (Failures.unavailable(e)) throw e;
                throw new StoreConfigurationException("cannot create the time partitions of idempotency table '" + settings.table()
                        + "' (" + e.getMessage() + ")" + ("42501".equals(e.getSQLState())
                        ? "; with partitioning the store's user must own the table" : ""), e);
            }
        }
        schemaReady = true;
    }

    static void requireIdentity(String scope, String key) {
        requireLength("scope", scope, MAX_IDENTIFIER_LENGTH);
        requireLength("key", key, MAX_IDENTIFIER_LENGTH);
        if (key.isEmpty()) throw new IllegalArgumentException("key must not be empty");
    }

    static void requireLength(String what, String value, int max) {
        Objects.requireNonNull(value, what);
        if (value.length() > max) throw new IllegalArgumentException(what + " longer than " + max + " characters");
    }
}
