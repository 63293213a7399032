package dev.idempotency.agent.core.gate;

import dev.idempotency.agent.core.telemetry.Outcome;

/** The gate's verdict: the agent answers, or the application runs (protected by an admission, or unprotected). */
public final class Decision {
    private static final Decision UNPROTECTED = new Decision(Outcome.UNPROTECTED, null, null);

    private final Outcome outcome;
    private final Answer answer;
    private final Admission admission;

    private Decision(Outcome outcome, Answer answer, Admission admission) {
        this.outcome = outcome;
        this.answer = answer;
        this.admission = admission;
    }

    static Decision answer(Outcome outcome, Answer answer) { return new Decision(outcome, answer, null); }
    static Decision run(Admission admission) { return new Decision(Outcome.EXECUTED, null, admission); }
    static Decision runUnprotected() { return UNPROTECTED; }

    /** What the decision means, for the figures. */
    public Outcome outcome() { return outcome; }

    /** The agent's answer; null when the application runs. */
    public Answer answer() { return answer; }

    /** The ownership of the key while the application runs; null when it runs unprotected (failure-mode open). */
    public Admission admission() { return admission; }
}
