package dev.idempotency.agent.bootstrap.bridge;

/**
 * What the effect hooks woven into JDBC drivers and outbound clients call. A hook costs one volatile read while no
 * keyed request is watched (the handler is installed only under {@code on-expired-lease=transaction}). Faults of the
 * agent never reach the application; only the refusal the handler means (an exception it throws to stop an effect it
 * could not mark) does, and it reaches it as the driver's own checked exception.
 */
public final class EffectBridge {
    private static volatile EffectHandler handler;

    private EffectBridge() {
    }

    public static void install(EffectHandler effectHandler) {
        handler = effectHandler;
    }

    public static void beforeCommit(Object connection) {
        EffectHandler h = handler;
        if (h == null) return;
        try {
            h.beforeCommit(connection);
        } catch (Throwable t) {
            rethrowRefusal(t);
        }
    }

    public static void beforeSetAutoCommit(Object connection, boolean on) {
        EffectHandler h = handler;
        if (h == null) return;
        try {
            h.beforeSetAutoCommit(connection, on);
        } catch (Throwable t) {
            rethrowRefusal(t);
        }
    }

    public static void beforeRollback(Object connection) {
        EffectHandler h = handler;
        if (h == null) return;
        try {
            h.beforeRollback(connection);
        } catch (Throwable ignored) {
            // a rollback is never stopped
        }
    }

    /** Called with the statement about to be returned; returns it, so that the woven code keeps its stack as it was. */
    public static Object prepared(Object statement, String sql) {
        EffectHandler h = handler;
        if (h == null) return statement;
        try {
            h.prepared(statement, sql);
        } catch (Throwable ignored) {
            // an unknown statement counts as a write: nothing is lost by forgetting one
        }
        return statement;
    }

    public static void beforeExecute(Object statement, String sql) {
        EffectHandler h = handler;
        if (h == null) return;
        try {
            h.beforeExecute(statement, sql);
        } catch (Throwable t) {
            rethrowRefusal(t);
        }
    }

    public static void beforeOutbound(String kind, Object target) {
        EffectHandler h = handler;
        if (h == null) return;
        try {
            h.beforeOutbound(kind, target);
        } catch (Throwable t) {
            rethrowRefusal(t);
        }
    }

    /** Returns what the woven client goes on with: {@code call} itself, or a request rebuilt with a header. */
    public static Object beforeHttpCall(Object call) {
        EffectHandler h = handler;
        if (h == null) return call;
        try {
            Object sent = h.beforeHttpCall(call);
            return sent == null ? call : sent;
        } catch (Throwable t) {
            rethrowRefusal(t);
            return call;
        }
    }

    public static void xaStarted(Object resource) {
        EffectHandler h = handler;
        if (h == null) return;
        try {
            h.xaStarted(resource);
        } catch (Throwable t) {
            rethrowRefusal(t);
        }
    }

    /** Only the handler's deliberate refusal passes: anything else it threw is its own fault, swallowed. */
    private static void rethrowRefusal(Throwable t) {
        if (t instanceof EffectRefused) EffectBridge.<RuntimeException>sneaky(((EffectRefused) t).effectiveException());
    }

    @SuppressWarnings("unchecked")
    private static <T extends Throwable> void sneaky(Throwable t) throws T {
        throw (T) t;
    }

    /** Thrown by the handler to stop an effect; carries what the application sees (an SQLException, an IOException). */
    public static final class EffectRefused extends RuntimeException {
        private static final long serialVersionUID = 1L;
        private final Exception effective;

        public EffectRefused(Exception effective) {
            super(effective.getMessage(), null, false, false);
            this.effective = effective;
        }

        public Exception effectiveException() { return effective; }
    }
}
