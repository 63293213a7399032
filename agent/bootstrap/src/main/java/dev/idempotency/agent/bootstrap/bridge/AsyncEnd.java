package dev.idempotency.agent.bootstrap.bridge;

/** The end of an asynchronous request cycle, as the agent core hears it. */
public interface AsyncEnd {

    void completed();

    void failed(Throwable cause);
}
