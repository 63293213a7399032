package dev.idempotency.store.jdbc;

import dev.idempotency.store.EffectMark;
import dev.idempotency.store.ExpiredLeasePolicy;
import dev.idempotency.store.OwnershipToken;
import dev.idempotency.store.StoreSettings;
import dev.idempotency.store.jdbc.StoreConnections.Sent;
import dev.idempotency.store.jdbc.dialect.Dialect;
import dev.idempotency.store.upkeep.SweepHorizon;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Objects;
import java.util.function.IntConsumer;

/**
 * Keys whose lease or ttl ran out: an expired lease decided by the owner's effect marks (for a reservation that finds
 * one, and for the sweep under {@link ExpiredLeasePolicy#TRANSACTION}), the sweep of expired leases by the configured
 * policy, and the purge of expired keys (by rows, or by dropping time partitions).
 */
final class ExpiredKeys {
    private final StoreSettings settings;
    private final Dialect dialect;
    private final Sql sql;
    private final StoreConnections connections;
    private final JdbcStatements statements;
    /** The key table's time partitions; null for one plain table. */
    private final TimePartitions partitions;
    private final boolean markedEffects;
    private final SweepHorizon sweepHorizon = new SweepHorizon(System::nanoTime);

    ExpiredKeys(StoreSettings settings, Dialect dialect, Sql sql, StoreConnections connections,
                JdbcStatements statements,
                TimePartitions partitions, boolean markedEffects) {
        this.settings = settings;
        this.dialect = dialect;
        this.sql = sql;
        this.connections = connections;
        this.statements = statements;
        this.partitions = partitions;
        this.markedEffects = markedEffects;
    }

    enum LeaseDecision { TAKEN_OVER, RETRYABLE, UNKNOWN, CHANGED }

    /**
     * Decides the expired lease of {@code ownerToken} on a key by its effect marks, in one transaction that locks the
     * key's row before it reads them: an application transaction committing a mark holds a lock on that row, so its
     * mark is either waited for and seen, or refused because the key moved on. Without marks the key goes to
     * {@code takeOver} (when given) or becomes retryable; with any it becomes unknown, keeping its owner's token.
     */
    LeaseDecision decideExpiredLease(Connection c, Sent sent, String scope, String key, String ownerToken,
                                     OwnershipToken takeOver, String fingerprint) throws SQLException {
        // Read committed whatever the server's default: the marks must be read with a snapshot taken after the row lock
        // was granted (under repeatable read PostgreSQL and H2 would read them as of the lock's request, before it waited).
        // (InnoDB's locking reads see the latest rows at any level, and its statement-based binary log refuses read
        // committed writes: MariaDB and MySQL keep their level.)
        int isolation = c.getTransactionIsolation();
        boolean switchLevel = !dialect.lockingReadsSeeLatestRows() && isolation != Connection.TRANSACTION_READ_COMMITTED;
        if (switchLevel) c.setTransactionIsolation(Connection.TRANSACTION_READ_COMMITTED);
        c.setAutoCommit(false);
        boolean committed = false;
        try {
            try (PreparedStatement ps = statements.prepare(c, sql.lockKey, scope, key); ResultSet rs = ps.executeQuery()) {
                if (!rs.next() || !ownerToken.equals(rs.getString("owner_token")) || !"IN_FLIGHT".equals(rs.getString("status").trim())
                        || rs.getInt("lease_over") != 1) {
                    return LeaseDecision.CHANGED;
                }
            }
            // Calls that carried a derived key to a host that honours it are safe to repeat; any other mark is not.
            boolean marked = false;
            try (PreparedStatement ps = statements.prepare(c, sql.ownerMarks, scope, key, ownerToken); ResultSet rs = ps.executeQuery()) {
                while (!marked && rs.next()) marked = !EffectMark.Kind.KEYED_CALL.name().equals(rs.getString("kind").trim());
            }
            LeaseDecision decision;
            if (marked) {
                decision = statements.update(c, sql.markUnknown, scope, key, ownerToken) == 1
                        ? LeaseDecision.UNKNOWN : LeaseDecision.CHANGED;
            } else if (takeOver != null) {
                boolean taken = sent.write(statements, c, takeOver, sql.takeOverExpiredLease, takeOver.token(),
                        settings.lease().toMillis(), settings.ttl().toMillis(), scope, key, fingerprint, ownerToken);
                decision = taken ? LeaseDecision.TAKEN_OVER : LeaseDecision.CHANGED;
            } else {
                decision = statements.update(c, sql.releaseAfterCrash, scope, key, ownerToken) == 1
                        ? LeaseDecision.RETRYABLE : LeaseDecision.CHANGED;
            }
            statements.commit(c);
            committed = true;
            return decision;
        } finally {
            if (!committed) rollbackQuietly(c);
            c.setAutoCommit(true);
            if (switchLevel) c.setTransactionIsolation(isolation);
        }
    }

    private static void rollbackQuietly(Connection c) {
        try {
            c.rollback();
        } catch (SQLException ignored) {
            // the connection is broken; the pool discards it and the database ends the transaction
        }
    }

    /** The sweep under {@link ExpiredLeasePolicy#TRANSACTION}: each expired key decided alone, in batches. */
    private int sweepByEffectMarks(Connection c, String candidates, Object... lookBack) throws SQLException {
        int changed = 0;
        Object[] params = Arrays.copyOf(lookBack, lookBack.length + 1);
        params[lookBack.length] = settings.batchSize();
        while (true) {
            List<String[]> expired = new ArrayList<>();
            try (PreparedStatement ps = statements.prepare(c, candidates, params); ResultSet rs = ps.executeQuery()) {
                while (rs.next()) expired.add(new String[] {rs.getString("scope"), rs.getString("idem_key"), rs.getString("owner_token")});
            }
            int decided = 0;
            for (String[] k : expired) {
                try {
                    if (decideExpiredLease(c, new Sent(), k[0], k[1], k[2], null, null) != LeaseDecision.CHANGED) decided++;
                } catch (SQLException e) {
                    if (!Failures.lostConflict(e)) throw e; // moved or locked meanwhile: looked at again in the next batch
                }
            }
            changed += decided;
            // A batch whose keys all changed under us (renewed, completed) ends the sweep: the next one looks again.
            if (expired.size() < settings.batchSize() || decided == 0) return changed;
        }
    }

    int sweepExpiredLeases() {
        long[] start = sweepHorizon.start();
        int swept;
        if (settings.expiredLeasePolicy() == ExpiredLeasePolicy.TRANSACTION) {
            swept = connections.housekeeping("sweep expired leases",
                    c -> sweepByEffectMarks(c, sql.expiredLeases, -start[0]));
        } else {
            String statement = settings.expiredLeasePolicy() == ExpiredLeasePolicy.RETRY ? sql.sweepToRetryable : sql.sweepToUnknown;
            swept = connections.housekeeping("sweep expired leases",
                    c -> inBatches(c, statement, changed -> { }, Sql.lookBack(statement, start[0])));
        }
        sweepHorizon.completed(start[1]);
        return swept;
    }

    /** The sweep's backstop: in-flight keys whose lease and ttl both ran out, found by the expiry index. */
    private int sweepExpiredKeys(Connection c) throws SQLException {
        switch (settings.expiredLeasePolicy()) {
            case TRANSACTION: return sweepByEffectMarks(c, sql.expiredLeasesOfExpiredKeys);
            case RETRY: return inBatches(c, sql.sweepExpiredKeysToRetryable, changed -> { });
            default: return inBatches(c, sql.sweepExpiredKeysToUnknown, changed -> { });
        }
    }

    int purgeExpired(IntConsumer afterEachBatch) {
        Objects.requireNonNull(afterEachBatch, "afterEachBatch");
        return connections.housekeeping("purge expired keys", c -> {
            int keys = 0;
            sweepExpiredKeys(c); // first: an abandoned key whose ttl is over becomes unknown or retryable, never stays
            if (partitions != null) {
                partitions.createAhead(c);
                keys = partitions.dropExpired(c, afterEachBatch);
            } else {
                for (String statement : sql.purge) keys += inBatches(c, statement, afterEachBatch);
            }
            keys += inBatches(c, sql.purgeUnknown, afterEachBatch);
            if (markedEffects) inBatches(c, sql.purgeEffects, marks -> { });
            return keys;
        });
    }

    private int inBatches(Connection c, String statement, IntConsumer afterEachBatch, Object... params) throws SQLException {
        int total = 0;
        int conflicts = 0;
        while (true) {
            int changed;
            try {
                changed = statements.update(c, statement, params);
            } catch (SQLException e) {
                // A row of the batch moved or was taken meanwhile (a partitioned table raises this where a plain one
                // skips the row): the batch, rolled back whole, is chosen again.
                if (!Failures.lostConflict(e) || ++conflicts > 3) throw e;
                continue;
            }
            total += changed;
            if (changed > 0) afterEachBatch.accept(changed);
            if (changed < settings.batchSize()) return total;
        }
    }
}
