package dev.idempotency.agent.core.gate;

import dev.idempotency.agent.core.log.AgentLog;
import dev.idempotency.agent.core.protocol.ReplayHeaders;
import dev.idempotency.agent.core.store.LeaseHeartbeat;
import dev.idempotency.store.IdempotencyStore;
import dev.idempotency.store.OwnershipToken;
import dev.idempotency.store.StoreException;
import dev.idempotency.store.StoredResponse;

import java.util.Collections;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * A request that owns its key while the application runs: its lease is renewed until it ends, and it ends exactly
 * once, by recording its response, by giving the key up, or by marking the response as not kept.
 */
public final class Admission {
    private final IdempotencyStore store;
    private final LeaseHeartbeat heartbeat;
    private final OwnershipToken token;
    private final String description;
    private final AtomicBoolean ended = new AtomicBoolean();

    Admission(IdempotencyStore store, LeaseHeartbeat heartbeat, OwnershipToken token, String description) {
        this.store = store;
        this.heartbeat = heartbeat;
        this.token = token;
        this.description = description;
        heartbeat.register(token);
    }

    /** Keeps renewing the lease only until the deadline (System.nanoTime), for transports that may not report the end. */
    public void renewUntil(long deadlineNanos) {
        if (!ended.get()) heartbeat.registerUntil(token, deadlineNanos);
    }

    public String description() { return description; }

    public boolean isEnded() { return ended.get(); }

    /** Ends the admission once; false when it had already ended. */
    public boolean end() {
        if (!ended.compareAndSet(false, true)) return false;
        heartbeat.unregister(token);
        return true;
    }

    /**
     * Records the response (retrying once). False when the store could not take it: the caller must not send a
     * response that a retry could not get again.
     */
    public boolean record(StoredResponse response) {
        StoreException failure = null;
        for (int attempt = 0; attempt < 2; attempt++) {
            try {
                if (!store.complete(token, response)) {
                    AgentLog.warn(description + ": the key was taken over or resolved while this request ran; its response was not recorded");
                }
                AgentLog.debug(description + ": recorded " + response);
                return true;
            } catch (StoreException e) {
                failure = e;
            }
        }
        AgentLog.error(description + ": the application ran but its response could not be recorded; the outcome is unknown to retries", failure);
        return false;
    }

    /** Gives the key up without a result: the next request with it runs the application again. */
    public void release(String why) {
        try {
            store.release(token);
            AgentLog.debug(description + ": released (" + why + "); a retry runs the application again");
        } catch (StoreException e) {
            AgentLog.warn(description + ": could not release the key (" + why + "); it stays in flight until its lease expires", e);
        }
    }

    /** Before a response too large to keep starts streaming: retries will get a problem instead of running again. */
    public void recordNotKept(int status, String reason) throws StoreException {
        store.complete(token, new StoredResponse(status,
                Collections.singletonList(new StoredResponse.Header(ReplayHeaders.NOT_KEPT_MARKER, reason)), new byte[0]));
        AgentLog.info(description + ": response streams through (" + reason + "); it is not kept for retries");
    }
}
