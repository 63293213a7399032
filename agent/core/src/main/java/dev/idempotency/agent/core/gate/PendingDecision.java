package dev.idempotency.agent.core.gate;

/**
 * What the outermost entry of a handled request leaves for its decision point, as a request attribute: the captured
 * request (or the note that its required key is missing), whether it has been decided, and, when the servlet layer
 * left the decision to the JAX-RS layer behind it (so that the runtime's authentication filters run first), who
 * takes the decision's outcome.
 */
public final class PendingDecision {
    /** The servlet-layer exchange waiting for a decision the JAX-RS layer makes. */
    public interface Deferred {
        /** The application may run under this admission (null: unprotected, failure-mode open). */
        void admitted(Admission admission);
    }

    private final String method;
    private final RequestCapture capture;
    private volatile boolean decided;
    private volatile Deferred deferred;
    private volatile Object deferredBy;

    private PendingDecision(String method, RequestCapture capture) {
        this.method = method;
        this.capture = capture;
    }

    public static PendingDecision of(RequestCapture capture) {
        return new PendingDecision(null, capture);
    }

    public static PendingDecision keyMissing(String method) {
        return new PendingDecision(method, null);
    }

    /** The captured keyed request; null when the key is missing where one is required. */
    public RequestCapture capture() { return capture; }

    public String method() { return method; }

    public boolean decided() { return decided; }

    public void markDecided() { decided = true; }

    /** Leaves the decision to the JAX-RS layer behind {@code component}; {@code exchange} is told the outcome. */
    public void deferTo(Deferred exchange, Object component) {
        deferred = exchange;
        deferredBy = component;
    }

    /** The servlet that left the decision to its JAX-RS layer (its own nested calls do not decide), or null. */
    public Object deferredBy() { return deferredBy; }

    /** The exchange waiting for the JAX-RS layer's decision, or null. */
    public Deferred deferred() { return decided ? null : deferred; }
}
