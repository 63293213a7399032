package dev.idempotency.agent.core.inprocess;

/** A test application on an embedded server, listening on an ephemeral loopback port. */
interface RunningShop extends AutoCloseable {
    /** http://127.0.0.1:PORT/shop */
    String baseUrl();
}
