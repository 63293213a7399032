package dev.idempotency.store.redis;

import dev.idempotency.store.OwnershipToken;
import dev.idempotency.store.StoreUnavailableException;
import redis.clients.jedis.Jedis;

import java.time.Duration;

/**
 * The {@code replica-acks} setting: a write that gives a key to a request, or records its response, counts only once
 * that many replicas have it ({@code WAIT} on the connection that wrote it). Redis replicates asynchronously, so
 * without it a master that dies before its replicas copied a key takes the key along, and a retry runs again. Fewer
 * acknowledgements within the wait, and the caller hears that the store is unavailable (a request then answers 503):
 * the write stays on the master, and may or may not survive it.
 */
final class ReplicaAcknowledgement {
    private final int replicas;
    /** Below the connection's read timeout (the query timeout), so that WAIT answers before the socket gives up. */
    private final long waitMillis;
    private final RedisEndpoint endpoint;

    ReplicaAcknowledgement(int replicas, Duration queryTimeout, RedisEndpoint endpoint) {
        this.replicas = replicas;
        this.waitMillis = Math.max(1, queryTimeout.toMillis() * 3 / 4);
        this.endpoint = endpoint;
    }

    /** Returns once enough replicas have what this connection wrote; else unavailable, carrying {@code writing}. */
    void await(Jedis redis, String operation, OwnershipToken writing) {
        if (replicas == 0) return;
        long acknowledged = redis.waitReplicas(replicas, waitMillis);
        if (acknowledged < replicas) {
            throw new StoreUnavailableException("idempotency store (" + endpoint + ") unavailable: " + operation
                    + " acknowledged by " + acknowledged + " of the " + replicas + " replica(s) setting 'replica-acks' "
                    + "asks for within " + waitMillis + " ms; the master holds it, a failover may lose it", null,
                    writing);
        }
    }
}
