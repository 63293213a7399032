package dev.idempotency.agent.core.gate;

import dev.idempotency.agent.core.config.AgentConfig;
import dev.idempotency.agent.core.effects.DerivedKeys;
import dev.idempotency.agent.core.effects.RequestEffects;
import dev.idempotency.agent.core.log.AgentLog;
import dev.idempotency.agent.core.telemetry.AgentMetrics;
import dev.idempotency.agent.core.protocol.ReplayHeaders;
import dev.idempotency.agent.core.lifecycle.LeaseHeartbeat;
import dev.idempotency.store.ExpiredLeasePolicy;
import dev.idempotency.store.KeyReservations;
import dev.idempotency.store.OwnershipToken;
import dev.idempotency.store.Reservation;
import dev.idempotency.store.StoreException;
import dev.idempotency.store.StoreNotReplicatedException;
import dev.idempotency.store.StoreUnavailableException;
import dev.idempotency.store.StoredResponse;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * A request that owns its key while the application runs: its lease is renewed until it ends, and it ends exactly
 * once, by recording its response, by giving the key up, or by marking the response as not kept.
 */
public final class Admission {
    /** How the application's response ended the admission, and so what the client may be sent. */
    public enum Conclusion {
        /** Recorded: send it. */
        RECORDED(AgentMetrics.Completion.RECORDED),
        /** Not worth keeping (a server error, a "try later" status): the key was released; send it as it is. */
        RELEASED(null), // counted by release()
        /** Another request took the key over while this one ran: this response can never be replayed, do not send it. */
        TAKEN_OVER(AgentMetrics.Completion.TAKEN_OVER),
        /** The store could not take it: do not send an answer that a retry could not get again. */
        NOT_RECORDED(AgentMetrics.Completion.NOT_RECORDED);

        /** How it counts among completions; null when counted elsewhere. */
        private final AgentMetrics.Completion counted;

        Conclusion(AgentMetrics.Completion counted) {
            this.counted = counted;
        }
    }

    private final KeyReservations store;
    private final LeaseHeartbeat heartbeat;
    private final OwnershipToken token;
    private final String description;
    private final AgentConfig config;
    private final boolean personalScope;
    private final AtomicBoolean ended = new AtomicBoolean();
    /** Whether this JVM still counts the key as held here (for the duplicates waiting for it). */
    private final AtomicBoolean heldHere = new AtomicBoolean(true);

    private final AgentMetrics metrics;
    /** Told that this request holds its key, and once it has written its end: duplicates waiting for it look again. */
    private final InFlightWaits waits;
    /** The effects watched while the application runs, under on-expired-lease=transaction; null otherwise. */
    private final RequestEffects effects;
    /** The keys of the outbound calls it makes to hosts that honour one; null when none are configured. */
    private final DerivedKeys derivedKeys;
    /** Where a retry lands that carries a session cookie the response sets, and the fingerprint to record there; or null. */
    private final SessionScope sessions;
    private final String fingerprint;
    /** The token of the record made in the session's scope, once made. */
    private volatile OwnershipToken sessionToken;

    Admission(KeyReservations store, LeaseHeartbeat heartbeat, OwnershipToken token, String description, AgentConfig config,
              boolean personalScope, AgentMetrics metrics, InFlightWaits waits) {
        this(store, heartbeat, token, description, config, personalScope, metrics, waits, null, null);
    }

    Admission(KeyReservations store, LeaseHeartbeat heartbeat, OwnershipToken token, String description, AgentConfig config,
              boolean personalScope, AgentMetrics metrics, InFlightWaits waits, SessionScope sessions, String fingerprint) {
        this.sessions = sessions;
        this.fingerprint = fingerprint;
        this.store = store;
        this.waits = waits;
        waits.held(token.scope(), token.key());
        this.metrics = metrics;
        this.heartbeat = heartbeat;
        this.token = token;
        this.description = description;
        this.config = config;
        this.personalScope = personalScope;
        heartbeat.register(token);
        this.effects = config.store.expiredLeasePolicy() == ExpiredLeasePolicy.TRANSACTION
                ? RequestEffects.watch(store, token, config.store.table(), description) : null;
        this.derivedKeys = DerivedKeys.bind(token.scope(), token.key());
    }

    public String description() { return description; }

    OwnershipToken token() { return token; }

    public boolean isEnded() { return ended.get(); }

    /** Ends the admission once; false when it had already ended. */
    public boolean end() {
        if (!ended.compareAndSet(false, true)) return false;
        if (effects != null) effects.close();
        if (derivedKeys != null) derivedKeys.close();
        heartbeat.unregister(token);
        notHeldHere();
        return true;
    }

    /**
     * The container gave up on the request (asynchronous timeout or error) while the application's work may still be
     * running: the key stays owned for the configured grace, so that no retry runs the work a second time; if the work
     * completes within it, its response is still recorded; otherwise the expired-lease policy decides.
     */
    public void abandonedByContainer() {
        notHeldHere(); // its end may never come: waiters look at the key themselves
        heartbeat.registerUntil(token, System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(config.abandonedWorkGrace.toMillis()));
        AgentLog.warn(description + ": the container ended the request while its work may still run; the key stays owned for up to "
                + config.abandonedWorkGrace.getSeconds() + "s, and a late result is still recorded");
    }

    /** Stops counting the key as held here, once, at the first of its end, its marking as not kept, or abandonment. */
    private void notHeldHere() {
        if (heldHere.compareAndSet(true, false)) waits.notHeld(token.scope(), token.key());
    }

    /** Ends the admission with the application's response (the caller has called {@link #end()}). */
    public Conclusion conclude(int status, List<String[]> headers, byte[] body) {
        heartbeat.recordingStarted(); // a JVM shutting down keeps the store open until this is written
        try {
            Conclusion conclusion = concluded(status, headers, body);
            if (conclusion.counted != null) metrics.completed(conclusion.counted);
            return conclusion;
        } finally {
            heartbeat.recordingEnded();
        }
    }

    private Conclusion concluded(int status, List<String[]> headers, byte[] body) {
        if (status >= 500 && !config.storeServerErrors) {
            release("status " + status);
            return Conclusion.RELEASED;
        }
        if (config.retryStatuses.contains(status)) {
            release("status " + status + " asks the client to try again");
            return Conclusion.RELEASED;
        }
        Conclusion recorded = record(new StoredResponse(status, kept(headers, personalScope), body));
        if (recorded == Conclusion.RECORDED && !recordForSession(status, headers, body)) return Conclusion.NOT_RECORDED;
        return recorded;
    }

    /**
     * Records the error page the container rendered for the application's sendError in place of the call recorded
     * for it (and so in the session's scope too, where the response set a session cookie). Should the store not take
     * it, the call stays recorded and replays render the page again.
     */
    public void recordErrorPage(int status, List<String[]> headers, byte[] page) {
        try {
            boolean replaced = store.replaceResponse(token, new StoredResponse(status, kept(headers, personalScope), page));
            OwnershipToken inSession = sessionToken;
            if (replaced && inSession != null) store.replaceResponse(inSession, new StoredResponse(status, kept(headers, true), page));
            if (replaced) AgentLog.debug(description + ": recorded the error page rendered for its sendError");
        } catch (StoreException e) {
            AgentLog.warn(description + ": could not record the error page rendered for its sendError; replays render it again", e);
        }
    }

    /**
     * A response that sets a session cookie is recorded, cookies and all, in the scope its client's retry will carry
     * that cookie in. Should that fail, the response is not sent: its client would otherwise retry in that scope and run
     * the application again, while a client without the cookie gets the replay recorded in this one.
     */
    private boolean recordForSession(int status, List<String[]> headers, byte[] body) {
        String scope = sessions == null ? null : sessions.afterResponse(headers);
        if (scope == null) return true;
        try {
            Reservation reservation = store.reserve(scope, token.key(), fingerprint);
            if (reservation.owned() && store.complete(reservation.token(), new StoredResponse(status, kept(headers, true), body))) {
                sessionToken = reservation.token();
                AgentLog.debug(description + ": recorded for retries with the session cookie it sets, in scope " + scope);
            } else {
                AgentLog.warn(description + ": the key was already in use in the scope of the session this response sets ("
                        + reservation.outcome() + "); a retry with that cookie gets what that scope holds");
            }
            return true;
        } catch (StoreException e) {
            AgentLog.error(description + ": the response sets a session cookie but could not be recorded for retries that"
                    + " send it; it is not sent", e);
            return false;
        }
    }

    /**
     * What is replayed: not hop-by-hop headers, and no cookie into a scope several clients share (anonymous, a tenant
     * header, none): it would hand one client's session to another.
     */
    private static List<StoredResponse.Header> kept(List<String[]> headers, boolean personal) {
        List<StoredResponse.Header> kept = new ArrayList<>(headers.size());
        for (String[] h : headers) {
            if (!ReplayHeaders.kept(h[0])) continue;
            if (!personal && ReplayHeaders.setsCookie(h[0])) continue;
            kept.add(new StoredResponse.Header(h[0], h[1]));
        }
        return kept;
    }

    private Conclusion record(StoredResponse response) {
        try {
            return recordOnce(response);
        } finally {
            waits.ended(token.scope(), token.key());
        }
    }

    /** Longest a response waits for the store to come back (a failover) before it is given up as not recorded. */
    private static final long MAX_RECORD_WAIT_MILLIS = 10_000;

    /**
     * Records the response, trying again while the store is unreachable for up to half the lease (at most 10 s): a
     * failover of the store's database takes seconds, and a response not recorded is never sent, so its key would end
     * outcome unknown. The completion stays fenced: should the lease have run out meanwhile and the key been decided
     * elsewhere, the late completion is refused and nothing is sent. A write the primary took but its synchronous
     * standby never confirmed is not tried again (it would only find itself written there): it is not sent.
     */
    private Conclusion recordOnce(StoredResponse response) {
        StoreException failure = null;
        long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(Math.min(MAX_RECORD_WAIT_MILLIS, config.store.lease().toMillis() / 2));
        long pause = 100;
        for (int attempt = 0; ; attempt++) {
            try {
                long start = System.nanoTime();
                boolean completed = store.complete(token, response);
                metrics.completeTook(System.nanoTime() - start);
                metrics.storeReachable(true);
                if (!completed) {
                    AgentLog.warn(description + ": the key was taken over or resolved while this request ran; its response was not"
                            + " recorded and is not sent");
                    return Conclusion.TAKEN_OVER;
                }
                // Guarded: the response's description is built for nothing on every keyed request otherwise.
                if (AgentLog.isEnabled(AgentLog.Level.DEBUG)) AgentLog.debug(description + ": recorded " + response);
                return Conclusion.RECORDED;
            } catch (StoreException e) {
                if (e instanceof StoreUnavailableException) metrics.storeReachable(false);
                failure = e;
            }
            if (failure instanceof StoreNotReplicatedException) break;
            boolean again = attempt == 0 || failure instanceof StoreUnavailableException && System.nanoTime() + pause * 1_000_000L < deadline;
            if (!again || !pauseBeforeRecordingAgain(pause)) break;
            pause = Math.min(1000, pause * 2);
        }
        AgentLog.error(description + ": the application ran but its response could not be recorded; the outcome is unknown to retries", failure);
        return Conclusion.NOT_RECORDED;
    }

    private static boolean pauseBeforeRecordingAgain(long millis) {
        try {
            Thread.sleep(millis); // a back-off while the store's database is away, not a wait for a condition
            return true;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return false;
        }
    }

    /**
     * The request goes on on threads the agent does not watch (an asynchronous cycle): under on-expired-lease=transaction
     * its key is marked so, and a crash leaves it unknown rather than run again. Called on the request's own thread.
     * Returns false when the mark could not be written.
     */
    public boolean continuesOffThread() {
        return effects == null || effects.continuesUnwatched("asynchronous processing on threads the agent does not watch");
    }

    /**
     * Gives the key up without a result: the next request with it runs the application again. Under
     * on-expired-lease=transaction a request that left effect marks keeps its key instead: its work may have happened,
     * so the key becomes outcome unknown when its lease runs out (its heartbeat stopped at its end).
     */
    public void release(String why) {
        if (effects != null && effects.marked()) {
            metrics.completed(AgentMetrics.Completion.NOT_RECORDED);
            waits.ended(token.scope(), token.key());
            AgentLog.warn(description + ": failed (" + why + ") after its work may have taken effect (it committed or called out);"
                    + " the key is not released, so that a retry cannot do the work twice: it becomes outcome unknown when its lease"
                    + " runs out, for an operator to resolve");
            return;
        }
        metrics.completed(AgentMetrics.Completion.RELEASED);
        heartbeat.recordingStarted();
        try {
            store.release(token);
            AgentLog.debug(description + ": released (" + why + "); a retry runs the application again");
        } catch (StoreException e) {
            AgentLog.warn(description + ": could not release the key (" + why + "); it stays in flight until its lease expires", e);
        } finally {
            heartbeat.recordingEnded();
            waits.ended(token.scope(), token.key());
        }
    }

    /**
     * Before a response too large to keep starts streaming: retries will get a problem instead of running again. It is
     * counted once its marker is written: when the store fails, the caller ends the key otherwise, and that is counted.
     */
    public void recordNotKept(int status, String reason) throws StoreException {
        notHeldHere(); // marked ended before the response streams: waiters must not wait for the stream's end
        heartbeat.recordingStarted();
        try {
            metrics.completed(recordNotKeptMarker(status, reason) ? AgentMetrics.Completion.NOT_KEPT : AgentMetrics.Completion.TAKEN_OVER);
        } finally {
            heartbeat.recordingEnded();
            waits.ended(token.scope(), token.key());
        }
    }

    private boolean recordNotKeptMarker(int status, String reason) throws StoreException {
        if (!store.complete(token, new StoredResponse(status,
                Collections.singletonList(new StoredResponse.Header(ReplayHeaders.NOT_KEPT_MARKER, reason)), new byte[0]))) {
            AgentLog.warn(description + ": the key was taken over or resolved while this request ran; its response streams"
                    + " through (" + reason + ") unmarked");
            return false;
        }
        AgentLog.info(description + ": response streams through (" + reason + "); it is not kept for retries");
        return true;
    }
}
