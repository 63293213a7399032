package dev.idempotency.agent.core.gate;

/** The gate's verdict: the agent answers, or the application runs (protected by an admission, or unprotected). */
public final class Decision {
    private static final Decision UNPROTECTED = new Decision(null, null);

    private final Answer answer;
    private final Admission admission;

    private Decision(Answer answer, Admission admission) {
        this.answer = answer;
        this.admission = admission;
    }

    static Decision answer(Answer answer) { return new Decision(answer, null); }
    static Decision run(Admission admission) { return new Decision(null, admission); }
    static Decision runUnprotected() { return UNPROTECTED; }

    /** The agent's answer; null when the application runs. */
    public Answer answer() { return answer; }

    /** The ownership of the key while the application runs; null when it runs unprotected (failure-mode open). */
    public Admission admission() { return admission; }
}
