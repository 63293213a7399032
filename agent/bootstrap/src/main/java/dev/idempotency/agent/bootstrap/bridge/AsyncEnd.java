package dev.idempotency.agent.bootstrap.bridge;

/** The end of an asynchronous request cycle, as the agent core hears it. */
public interface AsyncEnd {

    /**
     * The application starts an asynchronous cycle, on the request's thread, before it hands work to other threads. May
     * throw to stop the cycle from starting when what it needs cannot be done.
     */
    void starting();

    void completed();

    void failed(Throwable cause);
}
