package dev.idempotency.agent.core.effects;

import dev.idempotency.agent.bootstrap.bridge.EffectBridge;
import dev.idempotency.agent.bootstrap.bridge.EffectHandler;
import dev.idempotency.agent.core.log.AgentLog;
import dev.idempotency.store.EffectMark;

import java.io.IOException;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * Behind {@link EffectBridge}: turns what the hooks report into the current request's {@link RequestEffects}. A thread
 * that runs no keyed request pays one thread-local lookup per hooked call.
 */
public final class EffectWatch implements EffectHandler {
    private final AtomicBoolean xaReported = new AtomicBoolean();

    /** Installs the watch behind the bridge. */
    public static void install() {
        EffectBridge.install(new EffectWatch());
    }

    @Override
    public void beforeCommit(Object connection) {
        RequestEffects effects = RequestEffects.current();
        if (effects == null) return;
        try {
            effects.beforeCommit((Connection) connection);
        } catch (SQLException e) {
            throw new EffectBridge.EffectRefused(e);
        }
    }

    @Override
    public void beforeSetAutoCommit(Object connection, boolean on) {
        RequestEffects effects = RequestEffects.current();
        if (effects == null || !on || !effects.openTransactionWrote(connection)) return;
        Connection c = (Connection) connection;
        try {
            if (!c.getAutoCommit()) effects.beforeCommit(c); // turning autocommit on commits what is open
        } catch (SQLException e) {
            throw new EffectBridge.EffectRefused(e);
        }
    }

    @Override
    public void beforeRollback(Object connection) {
        RequestEffects effects = RequestEffects.current();
        if (effects != null) effects.rolledBack(connection);
    }

    @Override
    public void prepared(Object statement, String sql) {
        RequestEffects effects = RequestEffects.current();
        if (effects != null && statement != null && SqlStatements.kindOf(sql) == SqlStatements.Kind.READ) effects.preparedRead(statement);
    }

    @Override
    public void beforeExecute(Object statement, String sql) throws SQLException {
        RequestEffects effects = RequestEffects.current();
        if (effects == null) return;
        SqlStatements.Kind kind = sql == null && effects.isPreparedRead(statement) ? SqlStatements.Kind.READ : SqlStatements.kindOf(sql);
        if (kind == SqlStatements.Kind.READ) return;
        Connection connection = ((Statement) statement).getConnection();
        try {
            switch (kind) {
                case COMMIT:
                    effects.beforeCommit(connection);
                    return;
                case ROLLBACK:
                    effects.rolledBack(connection);
                    return;
                default:
                    effects.beforeWrite(connection);
            }
        } catch (SQLException e) {
            throw new EffectBridge.EffectRefused(e);
        } catch (RequestEffects.EffectNotMarked e) {
            throw new EffectBridge.EffectRefused(new SQLException(e.getMessage(), "40001", e.getCause()));
        } catch (EffectBridge.EffectRefused e) {
            throw e;
        } catch (RuntimeException e) {
            // a keyed request whose write the agent failed to mark must not write: after a crash it would run again
            AgentLog.error("could not mark a write of a keyed request; the write is refused", e);
            throw new EffectBridge.EffectRefused(new SQLException("idempotency agent: could not mark this write (" + e + ")", "40001", e));
        }
    }

    @Override
    public void beforeOutbound(String kind, Object target) {
        RequestEffects effects = RequestEffects.current();
        if (effects == null) return;
        String call = "jms".equals(kind) ? OutboundCalls.describeMessage(target) : OutboundCalls.describe(target);
        if (call == null) return; // a safe method (GET, HEAD, OPTIONS): no effect to fear
        try {
            effects.external(EffectMark.Kind.EXTERNAL, call);
        } catch (RequestEffects.EffectNotMarked e) {
            throw new EffectBridge.EffectRefused("jms".equals(kind) ? OutboundCalls.jmsRefusal(target, e.getMessage())
                    : new IOException(e.getMessage(), e.getCause()));
        }
    }

    @Override
    public void xaStarted(Object resource) {
        RequestEffects effects = RequestEffects.current();
        if (effects == null) return;
        if (xaReported.compareAndSet(false, true)) {
            AgentLog.warn("a keyed request uses an XA transaction (" + resource.getClass().getName() + "): its commit is the"
                    + " transaction manager's and is not seen, so such requests fall back to reconcile (after a crash their keys"
                    + " become outcome unknown)");
        }
        try {
            effects.external(EffectMark.Kind.UNWATCHED, "XA transaction");
        } catch (RequestEffects.EffectNotMarked e) {
            throw new EffectBridge.EffectRefused(new javax.transaction.xa.XAException(e.getMessage()));
        }
    }
}
