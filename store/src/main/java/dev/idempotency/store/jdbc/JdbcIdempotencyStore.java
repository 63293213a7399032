package dev.idempotency.store.jdbc;

import com.zaxxer.hikari.HikariDataSource;
import dev.idempotency.store.ExpiredLeasePolicy;
import dev.idempotency.store.IdempotencyStore;
import dev.idempotency.store.KeyRecord;
import dev.idempotency.store.KeyStatus;
import dev.idempotency.store.OwnershipToken;
import dev.idempotency.store.Reservation;
import dev.idempotency.store.StoreException;
import dev.idempotency.store.StoreSettings;
import dev.idempotency.store.StoreUnavailableException;
import dev.idempotency.store.StoredResponse;
import dev.idempotency.store.jdbc.dialect.Dialect;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.UUID;

/** {@link IdempotencyStore} on PostgreSQL, MariaDB/MySQL or H2, through a HikariCP pool in autocommit. */
public final class JdbcIdempotencyStore implements IdempotencyStore {

    /** Longest scope, key or fingerprint the schema holds. */
    public static final int MAX_IDENTIFIER_LENGTH = 255;
    private static final int MAX_FINGERPRINT_LENGTH = 128;
    private static final int MAX_RESERVE_ROUNDS = 5;
    private static final int RENEW_CHUNK = 200;

    private final StoreSettings settings;
    private final Dialect dialect;
    private final Sql sql;
    private final HikariDataSource pool;
    private volatile boolean schemaReady;

    private JdbcIdempotencyStore(StoreSettings settings) {
        this.settings = settings;
        this.dialect = Dialect.forUrl(settings.url());
        this.sql = new Sql(dialect, settings.table(), settings.batchSize());
        this.pool = ConnectionPool.open(settings, dialect);
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
        return withConnection("reserve", c -> {
            for (int round = 0; round < MAX_RESERVE_ROUNDS; round++) {
                String token = UUID.randomUUID().toString();
                OwnershipToken owned = new OwnershipToken(scope, key, token);
                if (insert(c, scope, key, fingerprint, token)) return Reservation.acquired(owned);
                KeyState state = readState(c, scope, key);
                if (state == null) continue; // deleted between our insert and our read: try the insert again
                if (state.expired && (state.status == KeyStatus.COMPLETED || state.status == KeyStatus.RETRYABLE)) {
                    if (update(c, sql.takeOverExpiredKey, fingerprint, token, leaseMillis(), ttlMillis(), scope, key) == 1) {
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
                        if (update(c, sql.takeOverRetryable, token, leaseMillis(), scope, key, fingerprint) == 1) {
                            return Reservation.reacquired(owned);
                        }
                        continue;
                    case IN_FLIGHT:
                        if (state.leaseLeftMillis > 0) return Reservation.inFlight(state.leaseLeftMillis);
                        if (settings.expiredLeasePolicy() == ExpiredLeasePolicy.RETRY) {
                            if (update(c, sql.takeOverExpiredLease, token, leaseMillis(), scope, key, fingerprint, state.ownerToken) == 1) {
                                return Reservation.reacquired(owned);
                            }
                        } else if (update(c, sql.markUnknown, scope, key, state.ownerToken) == 1) {
                            return Reservation.outcomeUnknown();
                        }
                        continue; // the owner renewed or someone else moved first: look again
                    default:
                        throw new IllegalStateException("unhandled status " + state.status);
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
        return withConnection("renew", c -> {
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
        return withConnection("sweep expired leases", c -> inBatches(c, statement));
    }

    @Override
    public int purgeExpired() {
        return withConnection("purge expired keys", c -> inBatches(c, sql.purge));
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
    public List<KeyRecord> list(KeyStatus status, int limit) {
        Objects.requireNonNull(status, "status");
        if (limit < 1) throw new IllegalArgumentException("limit must be positive: " + limit);
        return withConnection("list", c -> query(c, sql.list, status.name(), limit));
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
                HeaderCodec.encode(response.headers()), response.body(), scope, key) == 1);
    }

    @Override
    public boolean delete(String scope, String key) {
        requireIdentity(scope, key);
        return withConnection("delete", c -> update(c, sql.delete, scope, key) == 1);
    }

    @Override
    public void close() {
        pool.close();
    }

    // ---- statements

    private boolean insert(Connection c, String scope, String key, String fingerprint, String token) throws SQLException {
        try {
            return update(c, sql.insert, scope, key, fingerprint, token, leaseMillis(), ttlMillis()) == 1;
        } catch (SQLException e) {
            if (dialect.isDuplicateKey(e)) return false;
            throw e;
        }
    }

    private KeyState readState(Connection c, String scope, String key) throws SQLException {
        try (PreparedStatement ps = prepare(c, sql.selectState, scope, key); ResultSet rs = ps.executeQuery()) {
            if (!rs.next()) return null;
            KeyState state = new KeyState();
            state.fingerprint = rs.getString("fingerprint");
            state.status = KeyStatus.valueOf(rs.getString("status").trim());
            state.ownerToken = rs.getString("owner_token");
            state.leaseLeftMillis = rs.getLong("lease_left_ms");
            state.expired = rs.getInt("expired") == 1;
            state.response = state.status == KeyStatus.COMPLETED ? readResponse(rs) : null;
            return state;
        }
    }

    private List<KeyRecord> query(Connection c, String statement, Object... params) throws SQLException {
        List<KeyRecord> records = new ArrayList<>();
        try (PreparedStatement ps = prepare(c, statement, params); ResultSet rs = ps.executeQuery()) {
            while (rs.next()) {
                records.add(new KeyRecord(rs.getString("scope"), rs.getString("idem_key"), rs.getString("fingerprint"),
                        KeyStatus.valueOf(rs.getString("status").trim()), rs.getInt("attempts"),
                        dialect.readInstant(rs, "lease_expires_at"), dialect.readInstant(rs, "created_at"),
                        dialect.readInstant(rs, "updated_at"), dialect.readInstant(rs, "expires_at"), readResponse(rs)));
            }
        }
        return records;
    }

    private static StoredResponse readResponse(ResultSet rs) throws SQLException {
        int status = rs.getInt("response_status");
        if (rs.wasNull()) return null;
        byte[] body = rs.getBytes("response_body");
        return new StoredResponse(status, HeaderCodec.decode(rs.getString("response_headers")), body == null ? new byte[0] : body);
    }

    private int inBatches(Connection c, String statement) throws SQLException {
        int total = 0;
        while (true) {
            int changed = update(c, statement);
            total += changed;
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

    private <T> T withConnection(String operation, Work<T> work) {
        try (Connection c = pool.getConnection()) {
            if (!schemaReady) ensureSchema(c);
            return work.run(c);
        } catch (SQLException e) {
            if (SchemaManager.isConnectionProblem(e)) {
                throw new StoreUnavailableException("idempotency store unavailable during " + operation + ": " + e.getMessage(), e);
            }
            throw new StoreException("idempotency store failed during " + operation + ": " + e.getMessage(), e);
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
