package dev.idempotency.store.jdbc;

import dev.idempotency.store.ExpiredLeasePolicy;
import dev.idempotency.store.KeyStatus;
import dev.idempotency.store.OwnershipToken;
import dev.idempotency.store.Reservation;
import dev.idempotency.store.StoreDataException;
import dev.idempotency.store.StoreSettings;
import dev.idempotency.store.jdbc.BatchedWrites.FirstStep;
import dev.idempotency.store.jdbc.StoreConnections.Sent;
import dev.idempotency.store.jdbc.dialect.Dialect;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.concurrent.TimeUnit;

/**
 * The decision of a reservation once its first insert did not win (or was not tried): a few rounds, each one look at
 * the key and at most one write, until it is ours, answered by what it holds (replay, mismatch, in flight, outcome
 * unknown), or taken over by the expired-lease policy. A write's token counts as possibly reserved from the moment it
 * is sent ({@link Sent}), so a lost answer never loses a key the caller may hold.
 */
final class ReservationRounds {
    private static final int MAX_RESERVE_ROUNDS = 5;

    private final StoreSettings settings;
    private final Dialect dialect;
    private final Sql sql;
    private final JdbcStatements statements;
    private final KeyRows rows;
    /** The key table's time partitions; null for one plain table. */
    private final TimePartitions partitions;
    private final ExpiredKeys expiredKeys;
    /** When making a missing partition last failed for want of its lock (System.nanoTime), or 0. */
    private volatile long partitionsRefusedAt;

    ReservationRounds(StoreSettings settings, Dialect dialect, Sql sql, JdbcStatements statements, KeyRows rows,
                      TimePartitions partitions, ExpiredKeys expiredKeys) {
        this.settings = settings;
        this.dialect = dialect;
        this.sql = sql;
        this.statements = statements;
        this.rows = rows;
        this.partitions = partitions;
        this.expiredKeys = expiredKeys;
    }

    /** Everything after a first insert that did not win: what the key holds decides, a few rounds at most. */
    Reservation decide(Connection c, Sent sent, String scope, String key, String fingerprint, FirstStep first) throws SQLException {
        boolean insertRefused = first.present;
        KeyState known = first.state;
        SQLException noPartition = null;
        for (int round = 0; round < MAX_RESERVE_ROUNDS; round++) {
            try {
                Reservation decided = oneRound(c, sent, scope, key, fingerprint, first, round, insertRefused, known);
                if (decided != null) return decided;
                noPartition = null;
            } catch (SQLException e) {
                if (partitions != null && TimePartitions.missing(e)) {
                    noPartition = e;
                    makePartitionsFor(c, e); // the housekeeping fell behind the clock
                } else if (!Failures.lostConflict(e)) {
                    throw e;
                } else {
                    noPartition = null; // rolled back whole: another node's write to this key was certified first
                }
                sent.token = null;
            }
            insertRefused = false;
            known = null;
        }
        if (noPartition != null) throw noPartition; // not a key in flight: the partitions cannot be made
        // The key changed under us every round: others are actively working on it.
        return Reservation.inFlight(1000);
    }

    /**
     * Makes the partitions a write found missing; one whose DDL did not get its lock looks again all the same. After
     * such a refusal, reservations do not start the DDL again for a second (they would each wait for the same lock in
     * turn); they only wait for one of this JVM that is making them now, which may have got the lock since.
     */
    private void makePartitionsFor(Connection c, SQLException missing) throws SQLException {
        long refused = partitionsRefusedAt;
        if (refused != 0 && System.nanoTime() - refused < TimeUnit.SECONDS.toNanos(1)) {
            partitions.awaitAnyBeingMade();
            return;
        }
        try {
            partitions.createAhead(c);
        } catch (SQLException e) {
            if (!Failures.lockNotGranted(e)) throw e;
            partitionsRefusedAt = System.nanoTime();
            missing.addSuppressed(e);
        }
    }

    /** One look at the key and at most one write: the reservation, or null when the key changed and needs another look. */
    private Reservation oneRound(Connection c, Sent sent, String scope, String key, String fingerprint, FirstStep first,
                                 int round, boolean insertRefused, KeyState known) throws SQLException {
        // Generated before the write, so that it is known even if the write's answer never arrives.
        OwnershipToken owned = OwnershipToken.fresh(scope, key);
        String token = owned.token();
        if (!insertRefused && insert(c, sent, owned, fingerprint)) return Reservation.acquired(owned);
        KeyState state = known != null ? known : readState(c, scope, key);
        if (state == null) return null; // deleted between our insert and our read: try the insert again
        if (round == 0 && state.ownedBy(first.tried)) return Reservation.acquired(first.tried);
        Reservation answered = answerWithoutWriting(state, fingerprint);
        if (answered != null) return answered;
        if (state.expired && (state.status == KeyStatus.COMPLETED || state.status == KeyStatus.RETRYABLE)) {
            return write(c, sent, owned, sql.takeOverExpiredKey, fingerprint, token, leaseMillis(), ttlMillis(), scope, key)
                    ? Reservation.acquired(owned) : null;
        }
        switch (state.status) { // same fingerprint, and the key must be taken with a write
            case RETRYABLE:
                return write(c, sent, owned, sql.takeOverRetryable, token, leaseMillis(), ttlMillis(), scope, key, fingerprint)
                        ? Reservation.reacquired(owned) : null;
            case IN_FLIGHT: // past its lease
                if (settings.expiredLeasePolicy() == ExpiredLeasePolicy.TRANSACTION) {
                    ExpiredKeys.LeaseDecision decided =
                            expiredKeys.decideExpiredLease(c, sent, scope, key, state.ownerToken, owned, fingerprint);
                    if (decided == ExpiredKeys.LeaseDecision.TAKEN_OVER) return Reservation.reacquired(owned);
                    if (decided == ExpiredKeys.LeaseDecision.UNKNOWN) return Reservation.outcomeUnknown();
                } else if (settings.expiredLeasePolicy() == ExpiredLeasePolicy.RETRY) {
                    if (write(c, sent, owned, sql.takeOverExpiredLease, token, leaseMillis(), ttlMillis(), scope, key,
                            fingerprint, state.ownerToken)) {
                        return Reservation.reacquired(owned);
                    }
                } else if (statements.update(c, sql.markUnknown, scope, key, state.ownerToken) == 1) {
                    return Reservation.outcomeUnknown();
                }
                return null; // the owner renewed or someone else moved first: look again
            default:
                throw new StoreDataException(rows.describe(scope, key) + " has status " + state.status
                        + ", which this version cannot act on", null);
        }
    }

    /** The answer a key's state gives by itself, or null when taking the key needs a write. */
    static Reservation answerWithoutWriting(KeyState state, String fingerprint) {
        boolean terminal = state.status == KeyStatus.COMPLETED || state.status == KeyStatus.RETRYABLE;
        if (state.expired && terminal) return null; // counts as new
        if (!state.fingerprint.equals(fingerprint)) return Reservation.mismatch();
        if (state.status == KeyStatus.COMPLETED) return Reservation.replay(state.response);
        if (state.status == KeyStatus.UNKNOWN) return Reservation.outcomeUnknown();
        if (state.status == KeyStatus.IN_FLIGHT && state.leaseLeftMillis > 0) return Reservation.inFlight(state.leaseLeftMillis);
        return null;
    }

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

    /** A write that would give {@code owned} the key ({@link Sent#write}). */
    private boolean write(Connection c, Sent sent, OwnershipToken owned, String statement, Object... params) throws SQLException {
        return sent.write(statements, c, owned, statement, params);
    }

    KeyState readState(Connection c, String scope, String key) throws SQLException {
        try (PreparedStatement ps = statements.prepare(c, sql.selectState, scope, key); ResultSet rs = ps.executeQuery()) {
            return rs.next() ? rows.stateOf(rs, scope, key) : null;
        }
    }

    private long leaseMillis() { return settings.lease().toMillis(); }

    private long ttlMillis() { return settings.ttl().toMillis(); }
}
