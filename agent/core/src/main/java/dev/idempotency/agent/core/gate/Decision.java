package dev.idempotency.agent.core.gate;

import java.util.Map;

/** The gate's verdict: the agent answers, or the application runs (protected by an admission, or unprotected). */
public final class Decision {
    private final Answer answer;
    private final Admission admission;
    private final byte[] body;
    private final Map<String, String[]> form;

    private Decision(Answer answer, Admission admission, byte[] body, Map<String, String[]> form) {
        this.answer = answer;
        this.admission = admission;
        this.body = body;
        this.form = form;
    }

    static Decision answer(Answer answer) { return new Decision(answer, null, null, null); }
    static Decision run(Admission admission, byte[] body, Map<String, String[]> form) { return new Decision(null, admission, body, form); }
    static Decision runUnprotected(byte[] body, Map<String, String[]> form) { return new Decision(null, null, body, form); }

    /** The agent's answer; null when the application runs. */
    public Answer answer() { return answer; }

    /** The ownership of the key while the application runs; null when it runs unprotected (failure-mode open). */
    public Admission admission() { return admission; }

    /** The request body the agent read, to hand back to the application. */
    public byte[] body() { return body; }

    /** For form posts, their parameters (query string first); otherwise null. */
    public Map<String, String[]> form() { return form; }
}
