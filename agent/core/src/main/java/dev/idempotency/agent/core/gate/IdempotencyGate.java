package dev.idempotency.agent.core.gate;

import dev.idempotency.agent.core.config.AgentConfig;
import dev.idempotency.agent.core.log.AgentLog;
import dev.idempotency.agent.core.protocol.BoundedBody;
import dev.idempotency.agent.core.protocol.FormBody;
import dev.idempotency.agent.core.protocol.IdempotencyKeyParser;
import dev.idempotency.agent.core.protocol.Problem;
import dev.idempotency.agent.core.protocol.ReplayHeaders;
import dev.idempotency.agent.core.protocol.RequestFingerprint;
import dev.idempotency.agent.core.protocol.TenantScope;
import dev.idempotency.agent.core.store.StoreLifecycle;
import dev.idempotency.store.IdempotencyStore;
import dev.idempotency.store.Reservation;
import dev.idempotency.store.StoreException;
import dev.idempotency.store.StoredResponse;

import java.io.IOException;
import java.util.Map;

/**
 * Where the decision is made for a request that carries a key, whatever transport brought it (servlet or JAX-RS):
 * validate the key, read and fingerprint the body, derive the scope, reserve, and say whether the application runs or
 * what the agent answers instead.
 */
public final class IdempotencyGate {
    private final AgentConfig config;
    private final StoreLifecycle lifecycle;
    private final IdempotencyKeyParser keys;
    private final TenantScope tenants;
    private volatile long lastOpenWarning;

    public IdempotencyGate(AgentConfig config, StoreLifecycle lifecycle) {
        this.config = config;
        this.lifecycle = lifecycle;
        this.keys = new IdempotencyKeyParser(config.keyMaxLength);
        this.tenants = new TenantScope(config.tenant);
    }

    /** The answer for a handled request without a key on a path or route where one is required. */
    public Answer keyMissing(String method) {
        return Answer.problem(Problem.KEY_MISSING, "This endpoint requires an " + config.header + " header on " + method + " requests.", null);
    }

    public Decision decide(KeyedRequest request) {
        IdempotencyKeyParser.Result key = keys.parse(request.keyFields);
        if (!key.valid()) return Decision.answer(Answer.problem(Problem.KEY_INVALID, key.problem() + ".", null));
        String description = (request.route != null ? request.route + " (" + request.path + ")" : request.method + " " + request.path)
                + " [" + key.key() + "]";

        byte[] body;
        try {
            body = BoundedBody.read(request.body.open(), config.maxRequestBytes);
        } catch (BoundedBody.TooLargeException e) {
            return Decision.answer(Answer.problem(Problem.REQUEST_TOO_LARGE, "Requests with an " + config.header
                    + " may carry at most " + config.maxRequestBytes + " bytes.", null));
        } catch (IOException e) {
            return Decision.answer(Answer.problem(Problem.REQUEST_UNREADABLE, "The request body could not be read: " + e.getMessage(), null));
        }
        Map<String, String[]> form = FormBody.isForm(request.contentType) ? FormBody.parse(request.query, body, request.charset) : null;
        String fingerprint = RequestFingerprint.of(request.method, request.path, request.query, request.contentType, request.charset, body);
        String scope = tenants.scopeOf(request.principal, request.authorization, request.tenantHeader);

        IdempotencyStore store;
        Reservation reservation;
        try {
            store = lifecycle.store();
            reservation = store.reserve(scope, key.key(), fingerprint);
        } catch (StoreException e) {
            return storeUnavailable(description, body, form, e);
        }
        AgentLog.debug(description + " scope " + scope + ": " + reservation.outcome());
        switch (reservation.outcome()) {
            case ACQUIRED:
            case REACQUIRED:
                return Decision.run(new Admission(store, lifecycle.heartbeat(), reservation.token(), description), body, form);
            case REPLAY:
                return Decision.answer(replay(reservation.response()));
            case IN_FLIGHT:
                long seconds = Math.max(1, (reservation.leaseRemainingMillis() + 999) / 1000);
                return Decision.answer(Answer.problem(Problem.IN_PROGRESS, "A request with this " + config.header
                        + " is still being processed; retry after " + seconds + " seconds.", String.valueOf(seconds)));
            case MISMATCH:
                return Decision.answer(Answer.problem(Problem.KEY_REUSED, "This " + config.header
                        + " was already used for a request with a different method, path, query or body.", null));
            case OUTCOME_UNKNOWN:
                return Decision.answer(Answer.problem(Problem.OUTCOME_UNKNOWN, "An earlier request with this " + config.header
                        + " ended without a recorded result, so it may or may not have taken effect. It will not be run again"
                        + " automatically; an operator must resolve it.", null));
            default:
                throw new IllegalStateException("unhandled outcome " + reservation.outcome());
        }
    }

    private Answer replay(StoredResponse stored) {
        for (StoredResponse.Header h : stored.headers()) {
            if (h.name().equalsIgnoreCase(ReplayHeaders.NOT_KEPT_MARKER)) {
                return Answer.problem(Problem.RESPONSE_NOT_KEPT, "The request with this " + config.header
                        + " was processed (status " + stored.status() + "), but its response was too large to be kept, so it cannot be"
                        + " replayed. It will not be run again.", null);
            }
        }
        return Answer.replay(stored);
    }

    private Decision storeUnavailable(String description, byte[] body, Map<String, String[]> form, StoreException e) {
        if (config.failureMode == AgentConfig.FailureMode.OPEN) {
            long now = System.currentTimeMillis();
            if (now - lastOpenWarning > 10_000) {
                lastOpenWarning = now;
                AgentLog.error(description + ": idempotency store unavailable; failure-mode=open runs requests UNPROTECTED", e);
            }
            return Decision.runUnprotected(body, form);
        }
        AgentLog.warn(description + ": idempotency store unavailable, answering 503: " + e.getMessage());
        return Decision.answer(Answer.problem(Problem.STORE_UNAVAILABLE, "The idempotency store cannot be reached, so the request was"
                + " not processed. Retry later with the same " + config.header + ".", "2"));
    }
}
