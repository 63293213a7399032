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
 * that runs no keyed request pays one thread-local lookup per hooked call. For a keyed request, whatever goes wrong
 * while its effect is being marked refuses the effect: an effect without its mark could happen twice.
 */
public final class EffectWatch implements EffectHandler {
    private final AtomicBoolean xaReported = new AtomicBoolean();
    private final AtomicBoolean headerReported = new AtomicBoolean();

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
        } catch (Throwable t) {
            throw refused(t, "commit");
        }
    }

    @Override
    public void beforeSetAutoCommit(Object connection, boolean on) {
        RequestEffects effects = RequestEffects.current();
        if (effects == null || !on) return;
        // the PostgreSQL driver commits through its own commit(), hooked already
        if (RequestEffects.isPostgres(connection)) return;
        try {
            Connection c = (Connection) connection;
            if (!c.getAutoCommit()) effects.beforeCommit(c); // turning autocommit on commits what is open
        } catch (Throwable t) {
            throw refused(t, "commit");
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
    public void beforeExecute(Object statement, String sql) {
        RequestEffects effects = RequestEffects.current();
        if (effects == null) return;
        try {
            SqlStatements.Kind kind = sql == null && effects.isPreparedRead(statement) ? SqlStatements.Kind.READ : SqlStatements.kindOf(sql);
            if (kind == SqlStatements.Kind.READ) return;
            Connection connection = ((Statement) statement).getConnection();
            switch (kind) {
                case COMMIT:
                    effects.beforeCommit(connection);
                    return;
                case ROLLBACK:
                    effects.rolledBack(connection);
                    return;
                case DDL:
                    effects.beforeImplicitCommitAndWrite(connection, "DDL statement");
                    return;
                default:
                    effects.beforeWrite(connection);
            }
        } catch (Throwable t) {
            throw refused(t, "write");
        }
    }

    @Override
    public void beforeOutbound(String kind, Object target) {
        RequestEffects effects = RequestEffects.current();
        if (effects == null) return;
        try {
            effects.external(EffectMark.Kind.EXTERNAL, OutboundCalls.describeMessage(target)); // HTTP calls: beforeHttpCall
        } catch (Throwable t) {
            throw refusedCall(t, OutboundCalls.jmsRefusal(target, refusal(t)));
        }
    }

    /**
     * An outbound HTTP call of a keyed request: a call to a host that honours a key gets the key derived for it (unless
     * it carries one of its own that is not to be replaced), and under transaction recovery its mark says whether it
     * carries a derived one: read back from the request that leaves, after the key was put on, so that a call marked as
     * keyed carries it at least as far as this hook (an interceptor of the client's that runs later is not seen).
     */
    @Override
    public Object beforeHttpCall(Object target) {
        RequestEffects effects = RequestEffects.current();
        DerivedKeys keys = DerivedKeys.current();
        if (effects == null && keys == null) return target;
        try {
            OutboundCalls.Call call = OutboundCalls.read(target);
            if (call == null) return target; // a safe method (GET, HEAD, OPTIONS): no effect to fear
            Object sent = target;
            DerivedKeys.Derived derived = keys == null || call.method == null ? null
                    : keys.forCall(target, call.method, call.url, header -> OutboundCalls.header(target, header));
            boolean carries = false;
            if (derived != null && derived.key != null) {
                // also for a call decided before: a JDK request sent again is the same immutable object, without the key
                if (!derived.key.equals(OutboundCalls.header(target, derived.header))) {
                    sent = withKey(target, derived);
                    if (sent != target) keys.sameCall(sent, derived);
                }
                carries = derived.key.equals(OutboundCalls.header(sent, derived.header));
            }
            if (effects != null) {
                if (carries) {
                    effects.external(EffectMark.Kind.KEYED_CALL, call.describe() + " " + derived.header + ": " + derived.key);
                } else {
                    effects.external(EffectMark.Kind.EXTERNAL, call.describe());
                }
            }
            return sent;
        } catch (Throwable t) {
            throw refusedCall(t, new IOException(refusal(t), t));
        }
    }

    /** The call with its key; the call unchanged (and so marked as an unkeyed call) when the client would not take it. */
    private Object withKey(Object target, DerivedKeys.Derived derived) {
        try {
            return OutboundCalls.withHeader(target, derived.header, derived.key);
        } catch (Throwable t) {
            if (headerReported.compareAndSet(false, true)) {
                AgentLog.warn("could not add " + derived.header + " to a call by " + target.getClass().getName() + " (" + t + "): it leaves"
                        + " without a derived key, as it would without the agent; said once", t);
            }
            return target;
        }
    }

    private static String refusal(Throwable t) {
        return t instanceof RequestEffects.EffectNotMarked ? t.getMessage() : "idempotency agent: could not mark this call (" + t + "); it is refused";
    }

    private static EffectBridge.EffectRefused refusedCall(Throwable t, Exception seen) {
        if (!(t instanceof RequestEffects.EffectNotMarked)) AgentLog.error("could not mark an outbound call of a keyed request; the call is refused", t);
        return new EffectBridge.EffectRefused(seen);
    }

    @Override
    public void xaStarted(Object resource) {
        RequestEffects effects = RequestEffects.current();
        if (effects == null) return;
        if (xaReported.compareAndSet(false, true)) {
            AgentLog.warn("a keyed request uses an XA transaction (" + resource.getClass().getName() + "): its commit is the"
                    + " transaction manager's and is not seen, so such requests fall back to reconcile (after a crash their keys"
                    + " become outcome unknown); said once");
        }
        try {
            effects.external(EffectMark.Kind.UNWATCHED, "XA transaction");
        } catch (Throwable t) {
            throw new EffectBridge.EffectRefused(new javax.transaction.xa.XAException(t.getMessage()));
        }
    }

    /** What a JDBC effect that could not be marked fails with: the driver's own kind of exception. */
    private static EffectBridge.EffectRefused refused(Throwable t, String what) {
        if (t instanceof EffectBridge.EffectRefused) return (EffectBridge.EffectRefused) t;
        if (t instanceof SQLException) return new EffectBridge.EffectRefused((SQLException) t);
        if (t instanceof RequestEffects.EffectNotMarked) {
            return new EffectBridge.EffectRefused(new SQLException(t.getMessage(), "40001", t.getCause()));
        }
        // a fault of the agent's own: the effect must not happen unmarked
        AgentLog.error("could not mark a " + what + " of a keyed request; it is refused", t);
        return new EffectBridge.EffectRefused(new SQLException("idempotency agent: could not mark this " + what + " (" + t + "); it is refused",
                "40001", t));
    }
}
