package dev.idempotency.store.jdbc;

import com.zaxxer.hikari.HikariDataSource;
import dev.idempotency.store.ExpiredLeasePolicy;
import dev.idempotency.store.IdempotencyStore;
import dev.idempotency.store.KeyQuery;
import dev.idempotency.store.KeyRecord;
import dev.idempotency.store.KeyStatus;
import dev.idempotency.store.OwnershipToken;
import dev.idempotency.store.Reservation;
import dev.idempotency.store.StoreDataException;
import dev.idempotency.store.StoreException;
import dev.idempotency.store.StoreSettings;
import dev.idempotency.store.StoreUnavailableException;
import dev.idempotency.store.StoredResponse;
import dev.idempotency.store.jdbc.dialect.Dialect;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.security.SecureRandom;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collection;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.function.IntConsumer;

/**
 * {@link IdempotencyStore} on PostgreSQL, MariaDB/MySQL or H2, through HikariCP pools in autocommit: the main pool for
 * requests, and a small background pool for lease renewals and housekeeping, so that requests holding every main
 * connection can never starve the heartbeat that keeps their keys alive.
 */
public final class JdbcIdempotencyStore implements IdempotencyStore {

    /** Longest scope, key or fingerprint the schema holds. */
    public static final int MAX_IDENTIFIER_LENGTH = 255;
    private static final int MAX_FINGERPRINT_LENGTH = 128;
    private static final int MAX_RESERVE_ROUNDS = 5;
    private static final int RENEW_CHUNK = 200;
    private static final int SECRET_BYTES = 32;
    /** One connection for housekeeping, one always left for the heartbeat's renewals. */
    private static final int BACKGROUND_POOL_SIZE = 2;

    private final StoreSettings settings;
    private final Dialect dialect;
    private final Sql sql;
    private final HikariDataSource pool;
    private final HikariDataSource background;
    /** Housekeeping takes at most one background connection at a time: the other stays free for renewals. */
    private final Semaphore housekeeping = new Semaphore(1);
    private volatile boolean schemaReady;
    private volatile byte[] installationSecret;

    private JdbcIdempotencyStore(StoreSettings settings) {
        this.settings = settings;
        this.dialect = Dialect.forUrl(settings.url());
        this.sql = new Sql(dialect, settings.table(), settings.batchSize(), settings.unknownRetention().toMillis());
        this.pool = ConnectionPool.open(settings, dialect);
        this.background = ConnectionPool.openBackground(settings, dialect, BACKGROUND_POOL_SIZE);
    }

    /** Opens the store without touching the database: connections and the schema come on first use. */
    public static JdbcIdempotencyStore open(StoreSettings settings) {
        return new JdbcIdempotencyStore(Objects.requireNonNull(settings, "settings"));
    }

    public StoreSettings settings() { return settings; }

    public String dialectName() { return dialect.name(); }

    /** Connects and applies the schema mode now, instead of on first use. */
    public void checkSchema() {
        withConnection("check schema", c -> null);
    }

    @Override
    public Reservation reserve(String scope, String key, String fingerprint) {
        requireIdentity(scope, key);
        requireLength("fingerprint", fingerprint, MAX_FINGERPRINT_LENGTH);
        // The token of a write whose answer is outstanding: if the answer is lost, the key may be ours, and the caller
        // needs the token to give it back.
        Sent sent = new Sent();
        return withConnection(pool, "reserve", sent, c -> {
            for (int round = 0; round < MAX_RESERVE_ROUNDS; round++) {
                // Generated before the write, so that it is known even if the write's answer never arrives.
                String token = UUID.randomUUID().toString();
                OwnershipToken owned = new OwnershipToken(scope, key, token);
                if (insert(c, sent, owned, fingerprint)) return Reservation.acquired(owned);
                KeyState state = readState(c, scope, key);
                if (state == null) continue; // deleted between our insert and our read: try the insert again
                if (state.expired && (state.status == KeyStatus.COMPLETED || state.status == KeyStatus.RETRYABLE)) {
                    if (write(c, sent, owned, sql.takeOverExpiredKey, fingerprint, token, leaseMillis(), ttlMillis(), scope, key)) {
                        return Reservation.acquired(owned);
                    }
                    continue;
                }
                if (!state.fingerprint.equals(fingerprint)) return Reservation.mismatch();
                switch (state.status) {
                    case COMPLETED:
                        return Reservation.replay(state.response);
                    case UNKNOWN:
                        return Reservation.outcomeUnknown();
                    case RETRYABLE:
                        if (write(c, sent, owned, sql.takeOverRetryable, token, leaseMillis(), ttlMillis(), scope, key, fingerprint)) {
                            return Reservation.reacquired(owned);
                        }
                        continue;
                    case IN_FLIGHT:
                        if (state.leaseLeftMillis > 0) return Reservation.inFlight(state.leaseLeftMillis);
                        if (settings.expiredLeasePolicy() == ExpiredLeasePolicy.RETRY) {
                            if (write(c, sent, owned, sql.takeOverExpiredLease, token, leaseMillis(), ttlMillis(), scope, key,
                                    fingerprint, state.ownerToken)) {
                                return Reservation.reacquired(owned);
                            }
                        } else if (update(c, sql.markUnknown, scope, key, state.ownerToken) == 1) {
                            return Reservation.outcomeUnknown();
                        }
                        continue; // the owner renewed or someone else moved first: look again
                    default:
                        throw new StoreDataException(describe(scope, key) + " has status " + state.status
                                + ", which this version cannot act on", null);
                }
            }
            // The key changed under us every round: others are actively working on it.
            return Reservation.inFlight(1000);
        });
    }

    @Override
    public boolean complete(OwnershipToken token, StoredResponse response) {
        Objects.requireNonNull(token, "token");
        Objects.requireNonNull(response, "response");
        return withConnection("complete", c -> update(c, sql.complete, response.status(), HeaderCodec.encode(response.headers()),
                response.body(), token.scope(), token.key(), token.token()) == 1);
    }

    @Override
    public boolean release(OwnershipToken token) {
        Objects.requireNonNull(token, "token");
        return withConnection("release", c -> update(c, sql.release, token.scope(), token.key(), token.token()) == 1);
    }

    @Override
    public int renew(Collection<OwnershipToken> tokens) {
        if (tokens.isEmpty()) return 0;
        List<OwnershipToken> all = new ArrayList<>(tokens);
        return withConnection(background, "renew", null, c -> {
            int renewed = 0;
            for (int from = 0; from < all.size(); from += RENEW_CHUNK) {
                List<OwnershipToken> chunk = all.subList(from, Math.min(all.size(), from + RENEW_CHUNK));
                Object[] params = new Object[1 + 3 * chunk.size()];
                params[0] = leaseMillis();
                int i = 1;
                for (OwnershipToken t : chunk) {
                    params[i++] = t.scope();
                    params[i++] = t.key();
                    params[i++] = t.token();
                }
                renewed += update(c, sql.renew(chunk.size()), params);
            }
            return renewed;
        });
    }

    @Override
    public int sweepExpiredLeases() {
        String statement = settings.expiredLeasePolicy() == ExpiredLeasePolicy.RETRY ? sql.sweepToRetryable : sql.sweepToUnknown;
        return housekeeping("sweep expired leases", c -> inBatches(c, statement, changed -> { }));
    }

    @Override
    public int purgeExpired(IntConsumer afterEachBatch) {
        Objects.requireNonNull(afterEachBatch, "afterEachBatch");
        return housekeeping("purge expired keys", c -> inBatches(c, sql.purge, afterEachBatch) + inBatches(c, sql.purgeUnknown, afterEachBatch));
    }

    @Override
    public byte[] installationSecret() {
        byte[] known = installationSecret;
        if (known == null) {
            known = withConnection("read the installation secret", this::readOrCreateSecret);
            installationSecret = known;
        }
        return known.clone();
    }

    /** Insert-if-absent, then read: nodes racing on first use all read the one secret that got in. */
    private byte[] readOrCreateSecret(Connection c) throws SQLException {
        byte[] candidate = new byte[SECRET_BYTES];
        new SecureRandom().nextBytes(candidate);
        try {
            update(c, sql.insertSecret, candidate);
        } catch (SQLException e) {
            if (!dialect.isDuplicateKey(e)) throw e;
        }
        try (PreparedStatement ps = prepare(c, sql.selectSecret); ResultSet rs = ps.executeQuery()) {
            byte[] secret = rs.next() ? rs.getBytes(1) : null;
            if (secret == null || secret.length != SECRET_BYTES) {
                throw new StoreDataException("the installation secret in table '" + settings.table() + "_secret' is "
                        + (secret == null ? "missing" : secret.length + " bytes long") + ", expected " + SECRET_BYTES
                        + " bytes; delete its row and every node will agree on a new one", null);
            }
            return secret;
        }
    }

    @Override
    public Optional<KeyRecord> find(String scope, String key) {
        requireIdentity(scope, key);
        return withConnection("find", c -> {
            List<KeyRecord> records = query(c, sql.find, scope, key);
            return records.isEmpty() ? Optional.<KeyRecord>empty() : Optional.of(records.get(0));
        });
    }

    @Override
    public List<KeyRecord> list(KeyQuery query) {
        Objects.requireNonNull(query, "query");
        if (query.scope() != null) requireLength("scope", query.scope(), MAX_IDENTIFIER_LENGTH);
        List<Object> params = new ArrayList<>();
        if (query.status() != null) params.add(query.status().name());
        if (query.scope() != null) params.add(query.scope());
        if (query.olderThan() != null) params.add(-query.olderThan().toMillis());
        params.add(query.limit());
        String statement = sql.list(query.status() != null, query.scope() != null, query.olderThan() != null);
        return withConnection("list", c -> {
            List<KeyRecord> records = new ArrayList<>();
            try (PreparedStatement ps = prepare(c, statement, params.toArray()); ResultSet rs = ps.executeQuery()) {
                while (rs.next()) {
                    String scope = rs.getString("scope");
                    String key = rs.getString("idem_key");
                    int status = rs.getInt("response_status");
                    Integer responseStatus = rs.wasNull() ? null : status;
                    long size = rs.getLong("response_size");
                    records.add(KeyRecord.summary(scope, key, rs.getString("fingerprint"), decodeStatus(rs.getString("status"), scope, key),
                            rs.getInt("attempts"), dialect.readInstant(rs, "lease_expires_at"), dialect.readInstant(rs, "created_at"),
                            dialect.readInstant(rs, "updated_at"), dialect.readInstant(rs, "expires_at"), responseStatus,
                            rs.wasNull() ? -1 : (int) size));
                }
            }
            return records;
        });
    }

    @Override
    public Map<KeyStatus, Long> countByStatus() {
        return withConnection("count keys", c -> {
            Map<KeyStatus, Long> counts = new EnumMap<>(KeyStatus.class);
            try (PreparedStatement ps = prepare(c, sql.countByStatus); ResultSet rs = ps.executeQuery()) {
                while (rs.next()) counts.put(decodeStatus(rs.getString("status"), "*", "*"), rs.getLong("n"));
            }
            return counts;
        });
    }

    @Override
    public Instant databaseTime() {
        return withConnection("read the database clock", c -> {
            try (PreparedStatement ps = prepare(c, sql.databaseTime); ResultSet rs = ps.executeQuery()) {
                rs.next();
                return dialect.readInstant(rs, "db_now");
            }
        });
    }

    /**
     * What the store's database user may not do that the store needs, one line each; empty when everything works.
     * Inserts, updates and deletes a probe row in a transaction that is rolled back; with {@code ddl}, also creates and
     * drops a probe table (schema mode create needs that).
     */
    public List<String> privilegeProblems(boolean ddl) {
        return withConnection("check privileges", c -> PrivilegeProbe.problems(c, dialect, settings.table(), true, ddl));
    }

    /** Whether the key table exists and can be read (a store opened with schema mode none does no more than ask). */
    public boolean tableExists() {
        return withConnection("look for the table", c -> PrivilegeProbe.tableReadable(c, settings.table()));
    }

    /** {@link #privilegeProblems} for a table that does not exist yet: only whether it could be created. */
    public List<String> creationProblems() {
        return withConnection("check privileges", c -> PrivilegeProbe.problems(c, dialect, settings.table(), false, true));
    }

    @Override
    public boolean resolveForRetry(String scope, String key) {
        requireIdentity(scope, key);
        return withConnection("resolve for retry", c -> update(c, sql.resolveForRetry, scope, key) == 1);
    }

    @Override
    public boolean resolveAsCompleted(String scope, String key, StoredResponse response) {
        requireIdentity(scope, key);
        Objects.requireNonNull(response, "response");
        return withConnection("resolve as completed", c -> update(c, sql.resolveAsCompleted, response.status(),
                HeaderCodec.encode(response.headers()), response.body(), ttlMillis(), scope, key) == 1);
    }

    @Override
    public boolean delete(String scope, String key) {
        requireIdentity(scope, key);
        return withConnection("delete", c -> update(c, sql.delete, scope, key) == 1);
    }

    @Override
    public void close() {
        try {
            pool.close();
        } finally {
            background.close();
        }
    }

    // ---- statements

    private boolean insert(Connection c, Sent sent, OwnershipToken owned, String fingerprint) throws SQLException {
        try {
            return write(c, sent, owned, sql.insert, owned.scope(), owned.key(), fingerprint, owned.token(), leaseMillis(), ttlMillis());
        } catch (SQLException e) {
            if (dialect.isDuplicateKey(e)) {
                sent.token = null; // the database answered: the row was not ours
                return false;
            }
            throw e;
        }
    }

    /**
     * A write that would give {@code owned} the key: the token counts as possibly reserved from the moment the statement
     * leaves until the database's answer says it did not get in.
     */
    private static boolean write(Connection c, Sent sent, OwnershipToken owned, String statement, Object... params) throws SQLException {
        sent.token = owned;
        boolean won = update(c, statement, params) == 1;
        if (!won) sent.token = null;
        return won;
    }

    private KeyState readState(Connection c, String scope, String key) throws SQLException {
        try (PreparedStatement ps = prepare(c, sql.selectState, scope, key); ResultSet rs = ps.executeQuery()) {
            if (!rs.next()) return null;
            KeyState state = new KeyState();
            state.fingerprint = rs.getString("fingerprint");
            state.status = decodeStatus(rs.getString("status"), scope, key);
            state.ownerToken = rs.getString("owner_token");
            state.leaseLeftMillis = rs.getLong("lease_left_ms");
            state.expired = rs.getInt("expired") == 1;
            state.response = state.status == KeyStatus.COMPLETED ? readResponse(rs, scope, key) : null;
            return state;
        }
    }

    private List<KeyRecord> query(Connection c, String statement, Object... params) throws SQLException {
        List<KeyRecord> records = new ArrayList<>();
        try (PreparedStatement ps = prepare(c, statement, params); ResultSet rs = ps.executeQuery()) {
            while (rs.next()) {
                String scope = rs.getString("scope");
                String key = rs.getString("idem_key");
                records.add(new KeyRecord(scope, key, rs.getString("fingerprint"),
                        decodeStatus(rs.getString("status"), scope, key), rs.getInt("attempts"),
                        dialect.readInstant(rs, "lease_expires_at"), dialect.readInstant(rs, "created_at"),
                        dialect.readInstant(rs, "updated_at"), dialect.readInstant(rs, "expires_at"), readResponse(rs, scope, key)));
            }
        }
        return records;
    }

    // A row this version cannot read (a status from a newer release during a rolling upgrade, corrupt headers) is a
    // store failure naming the row, never an IllegalArgumentException from deep inside: callers fail closed on the key.
    private KeyStatus decodeStatus(String raw, String scope, String key) {
        if (raw != null) {
            for (KeyStatus status : KeyStatus.values()) if (status.name().equals(raw.trim())) return status;
        }
        throw new StoreDataException(describe(scope, key) + " has status " + (raw == null ? "NULL" : "'" + raw + "'")
                + ", which this version does not know (written by a newer release?); upgrade, or resolve or delete the key", null);
    }

    private StoredResponse readResponse(ResultSet rs, String scope, String key) throws SQLException {
        int status = rs.getInt("response_status");
        if (rs.wasNull()) return null;
        byte[] body = rs.getBytes("response_body");
        try {
            return new StoredResponse(status, HeaderCodec.decode(rs.getString("response_headers")), body == null ? new byte[0] : body);
        } catch (RuntimeException e) {
            throw new StoreDataException(describe(scope, key) + " has a stored response this version cannot read ("
                    + e.getMessage() + "); resolve or delete the key", e);
        }
    }

    private String describe(String scope, String key) {
        return "idempotency key '" + key + "' in scope '" + scope + "' (table " + settings.table() + ")";
    }

    private int inBatches(Connection c, String statement, IntConsumer afterEachBatch) throws SQLException {
        int total = 0;
        while (true) {
            int changed = update(c, statement);
            total += changed;
            if (changed > 0) afterEachBatch.accept(changed);
            if (changed < settings.batchSize()) return total;
        }
    }

    private static int update(Connection c, String statement, Object... params) throws SQLException {
        try (PreparedStatement ps = prepare(c, statement, params)) {
            return ps.executeUpdate();
        }
    }

    private static PreparedStatement prepare(Connection c, String statement, Object... params) throws SQLException {
        PreparedStatement ps = c.prepareStatement(statement);
        try {
            for (int i = 0; i < params.length; i++) {
                Object p = params[i];
                if (p instanceof String) ps.setString(i + 1, (String) p);
                else if (p instanceof Long) ps.setLong(i + 1, (Long) p);
                else if (p instanceof Integer) ps.setInt(i + 1, (Integer) p);
                else if (p instanceof byte[]) ps.setBytes(i + 1, (byte[]) p);
                else throw new IllegalArgumentException("unsupported parameter type " + p);
            }
            return ps;
        } catch (SQLException | RuntimeException e) {
            ps.close();
            throw e;
        }
    }

    // ---- connections, schema, errors

    private interface Work<T> {
        T run(Connection connection) throws SQLException;
    }

    /** What {@link #reserve} has sent and not yet heard back about. */
    private static final class Sent {
        OwnershipToken token;
    }

    private <T> T withConnection(String operation, Work<T> work) {
        return withConnection(pool, operation, null, work);
    }

    private <T> T withConnection(HikariDataSource source, String operation, Sent sent, Work<T> work) {
        try (Connection c = source.getConnection()) {
            if (!schemaReady) ensureSchema(c);
            return work.run(c);
        } catch (SQLException e) {
            if (SchemaManager.isConnectionProblem(e)) {
                throw new StoreUnavailableException("idempotency store unavailable during " + operation + ": " + withCause(e), e,
                        sent == null ? null : sent.token);
            }
            throw new StoreException("idempotency store failed during " + operation + ": " + e.getMessage(), e);
        }
    }

    /** The pool's "connection is not available" says nothing of why; the driver's failure beneath it does. */
    private static String withCause(SQLException e) {
        Throwable root = e;
        while (root.getCause() != null && root.getCause() != root) root = root.getCause();
        String message = e.getMessage();
        return root == e || root.getMessage() == null || String.valueOf(message).contains(root.getMessage())
                ? message : message + " (" + root.getMessage().trim() + ")";
    }

    /** Sweep and purge: on the background pool, one at a time, waiting no longer than for a connection. */
    private int housekeeping(String operation, Work<Integer> work) {
        try {
            if (!housekeeping.tryAcquire(settings.connectTimeout().toMillis(), TimeUnit.MILLISECONDS)) {
                throw new StoreUnavailableException("idempotency store busy during " + operation
                        + ": other housekeeping still runs after " + settings.connectTimeout().toMillis() + " ms", null);
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new StoreUnavailableException("interrupted before " + operation, e);
        }
        try {
            return withConnection(background, operation, null, work);
        } finally {
            housekeeping.release();
        }
    }

    private synchronized void ensureSchema(Connection c) throws SQLException {
        if (schemaReady) return;
        SchemaManager.apply(c, dialect, settings.table(), settings.schemaMode());
        schemaReady = true;
    }

    private long leaseMillis() { return settings.lease().toMillis(); }

    private long ttlMillis() { return settings.ttl().toMillis(); }

    private static void requireIdentity(String scope, String key) {
        requireLength("scope", scope, MAX_IDENTIFIER_LENGTH);
        requireLength("key", key, MAX_IDENTIFIER_LENGTH);
        if (key.isEmpty()) throw new IllegalArgumentException("key must not be empty");
    }

    private static void requireLength(String what, String value, int max) {
        Objects.requireNonNull(value, what);
        if (value.length() > max) throw new IllegalArgumentException(what + " longer than " + max + " characters");
    }

    /** What reserve needs to know about an existing key. */
    private static final class KeyState {
        String fingerprint;
        KeyStatus status;
        String ownerToken;
        long leaseLeftMillis;
        boolean expired;
        StoredResponse response;
    }
}
