package dev.idempotency.store.jdbc;

import dev.idempotency.store.EffectMark;
import dev.idempotency.store.KeyRecord;
import dev.idempotency.store.KeyStatus;
import dev.idempotency.store.StoreDataException;
import dev.idempotency.store.StoredResponse;
import dev.idempotency.store.jdbc.dialect.Dialect;

import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Instant;

/**
 * Rows of the key table (and of its effect marks) as the store's types. A row this version cannot read (a status from
 * a newer release during a rolling upgrade, corrupt headers) is a {@link StoreDataException} naming the key, never an
 * IllegalArgumentException from deep inside: callers fail closed on the key.
 */
final class KeyRows {
    private final Dialect dialect;
    private final String table;

    KeyRows(Dialect dialect, String table) {
        this.dialect = dialect;
        this.table = table;
    }

    /** A whole row, with its response. */
    KeyRecord record(ResultSet rs) throws SQLException {
        String scope = rs.getString("scope");
        String key = rs.getString("idem_key");
        KeyStatus status = decodeStatus(rs.getString("status"), scope, key);
        return new KeyRecord(scope, key, rs.getString("fingerprint"), status, rs.getInt("attempts"), leaseOf(rs, status),
                dialect.readInstant(rs, "created_at"), dialect.readInstant(rs, "updated_at"),
                dialect.readInstant(rs, "expires_at"), readResponse(rs, scope, key));
    }

    /** A row of the operator's listing: the response's status and size, not its body. */
    KeyRecord summary(ResultSet rs) throws SQLException {
        String scope = rs.getString("scope");
        String key = rs.getString("idem_key");
        int code = rs.getInt("response_status");
        Integer responseStatus = rs.wasNull() ? null : code;
        long size = rs.getLong("response_size");
        int responseSize = rs.wasNull() ? -1 : (int) size;
        KeyStatus status = decodeStatus(rs.getString("status"), scope, key);
        return KeyRecord.summary(scope, key, rs.getString("fingerprint"), status, rs.getInt("attempts"),
                leaseOf(rs, status), dialect.readInstant(rs, "created_at"), dialect.readInstant(rs, "updated_at"),
                dialect.readInstant(rs, "expires_at"), responseStatus, responseSize);
    }

    /** A row of the effect marks. */
    EffectMark effect(ResultSet rs) throws SQLException {
        EffectMark.Kind kind;
        try {
            kind = EffectMark.Kind.valueOf(rs.getString("kind").trim());
        } catch (IllegalArgumentException newer) {
            kind = EffectMark.Kind.UNWATCHED; // written by a newer release: still a mark
        }
        return new EffectMark(kind, rs.getString("detail"), dialect.readInstant(rs, "marked_at"));
    }

    /** A row of {@link Sql#selectState}'s columns. */
    KeyState stateOf(ResultSet rs, String scope, String key) throws SQLException {
        KeyState state = new KeyState();
        state.fingerprint = rs.getString("fingerprint");
        state.status = decodeStatus(rs.getString("status"), scope, key);
        state.ownerToken = rs.getString("owner_token");
        state.leaseLeftMillis = rs.getLong("lease_left_ms");
        state.expired = rs.getInt("expired") == 1;
        state.response = state.status == KeyStatus.COMPLETED ? readResponse(rs, scope, key) : null;
        return state;
    }

    /** A key's lease: only a key in flight has one (a completion leaves the column as it was, see Sql#complete). */
    Instant leaseOf(ResultSet rs, KeyStatus status) throws SQLException {
        return status == KeyStatus.IN_FLIGHT ? dialect.readInstant(rs, "lease_expires_at") : null;
    }

    // A row this version cannot read (a status from a newer release during a rolling upgrade, corrupt headers) is a
    // store failure naming the row, never an IllegalArgumentException from deep inside: callers fail closed on the key.
    KeyStatus decodeStatus(String raw, String scope, String key) {
        if (raw != null) {
            for (KeyStatus status : KeyStatus.values()) if (status.name().equals(raw.trim())) return status;
        }
        throw new StoreDataException(describe(scope, key) + " has status " + (raw == null ? "NULL" : "'" + raw + "'")
                + ", which this version does not know (written by a newer release?); upgrade, or resolve or delete the key", null);
    }

    StoredResponse readResponse(ResultSet rs, String scope, String key) throws SQLException {
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

    String describe(String scope, String key) {
        return "idempotency key '" + key + "' in scope '" + scope + "' (table " + table + ")";
    }
}
