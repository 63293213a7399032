package dev.idempotency.store.redis;

import dev.idempotency.store.OwnershipToken;
import dev.idempotency.store.StoreNotReplicatedException;
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

    /**
     * Returns once enough replicas hold everything the master has taken so far ({@code marker} is the counter written
     * first); else a reservation ({@code writing} its token) is unavailable, and a response is not replicated: sending
     * it again would only find it on this master, so it is not sent again.
     */
    void await(Jedis redis, byte[] marker, String operation, OwnershipToken writing) {
        if (replicas == 0) return;
        redis.incr(marker);
        long acknowledged = redis.waitReplicas(replicas, waitMillis);
        if (acknowledged >= replicas) return;
        String message = "idempotency store (" + endpoint + ") unavailable: " + operation + " acknowledged by "
                + acknowledged + " of the " + replicas + " replica(s) setting 'replica-acks' asks for within "
                + waitMillis + " ms; the master holds it, a failover may lose it";
        if (writing != null) throw new StoreUnavailableException(message, null, writing);
        throw new StoreNotReplicatedException(message, null, null);
    }
}
