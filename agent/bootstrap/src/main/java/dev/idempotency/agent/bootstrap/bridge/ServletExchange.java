package dev.idempotency.agent.bootstrap.bridge;

/** A request the agent manages, as the advice sees it. */
public interface ServletExchange {

    /** True when the agent answered itself (replay, problem): the application must not run. */
    boolean answered();

    /** The request the application must see (a wrapper that replays the body the agent read). */
    Object request();

    /** The response the application must write to (a wrapper that captures it). */
    Object response();
}
