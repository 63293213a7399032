package dev.idempotency.agent.core.servlet;

import dev.idempotency.agent.bootstrap.bridge.ServletAccessor;
import dev.idempotency.agent.bootstrap.bridge.ServletExchange;
import dev.idempotency.agent.bootstrap.bridge.ServletHandler;
import dev.idempotency.agent.core.config.AgentConfig;
import dev.idempotency.agent.core.log.AgentLog;
import dev.idempotency.agent.core.protocol.BoundedBody;
import dev.idempotency.agent.core.protocol.FormBody;
import dev.idempotency.agent.core.protocol.IdempotencyKeyParser;
import dev.idempotency.agent.core.protocol.Problem;
import dev.idempotency.agent.core.protocol.ReplayHeaders;
import dev.idempotency.agent.core.protocol.RequestFingerprint;
import dev.idempotency.agent.core.protocol.TenantMode;
import dev.idempotency.agent.core.protocol.TenantScope;
import dev.idempotency.agent.core.store.StoreLifecycle;
import dev.idempotency.store.IdempotencyStore;
import dev.idempotency.store.Reservation;
import dev.idempotency.store.StoreException;
import dev.idempotency.store.StoredResponse;

import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * Where the decision is made, for both servlet namespaces: which requests the agent handles, and for a handled one
 * whether the application runs, or the agent answers with the stored response or a problem.
 *
 * <p>A request the agent does not handle costs a method comparison and one header lookup.
 */
public final class IdempotentServletHandler implements ServletHandler {
    static final String HANDLED_ATTRIBUTE = "dev.idempotency.agent.handled";
    static final String PENDING_ATTRIBUTE = "dev.idempotency.agent.pending";

    private final AgentConfig config;
    private final StoreLifecycle lifecycle;
    private final ServletEdges edges = new ServletEdges();
    private final IdempotencyKeyParser keys;
    private final TenantScope tenants;
    private volatile long lastOpenWarning;

    public IdempotentServletHandler(AgentConfig config, StoreLifecycle lifecycle) {
        this.config = config;
        this.lifecycle = lifecycle;
        this.keys = new IdempotencyKeyParser(config.keyMaxLength);
        this.tenants = new TenantScope(config.tenant);
    }

    @Override
    public ServletExchange enter(Object servlet, Object request, Object response) {
        ServletAccessor http = edges.forServlet(servlet.getClass());
        if (http == null) return null;
        String method = http.method(request);
        if (!config.methods.contains(method)) return null;
        String keyField = http.header(request, config.header);
        if (keyField == null && config.required.isEmpty()) return null;
        if (!http.isInitialDispatch(request)) {
            return keyField != null && http.isAsyncDispatch(request) ? asyncRedispatch(http, request, response) : null;
        }
        if (http.attribute(request, HANDLED_ATTRIBUTE) != null) return null; // an inner servlet of a handled request
        String path = http.requestUri(request);
        if (!config.include.matches(path) || config.exclude.matches(path)) return null;
        if (keyField == null) {
            if (!config.required.matches(path)) return null;
            http.setAttribute(request, HANDLED_ATTRIBUTE, Boolean.TRUE);
            return problem(http, response, Problem.KEY_MISSING, "This endpoint requires an " + config.header
                    + " header on " + method + " requests.", null);
        }
        http.setAttribute(request, HANDLED_ATTRIBUTE, Boolean.TRUE);
        return protect(http, request, response, method, path);
    }

    @Override
    public void exit(ServletExchange exchange, Object request, Throwable thrown) {
        if (exchange instanceof ProtectedExchange) {
            ((ProtectedExchange) exchange).serviceExited(request, thrown);
        } else if (exchange instanceof SimpleExchanges.AsyncRedispatch) {
            ((SimpleExchanges.AsyncRedispatch) exchange).exchange.serviceExited(request, thrown);
        }
    }

    private ServletExchange asyncRedispatch(ServletAccessor http, Object request, Object response) {
        Object pending = http.attribute(request, PENDING_ATTRIBUTE);
        if (!(pending instanceof ProtectedExchange)) return null;
        http.setAttribute(request, PENDING_ATTRIBUTE, null);
        return new SimpleExchanges.AsyncRedispatch((ProtectedExchange) pending, request, response);
    }

    private ServletExchange protect(ServletAccessor http, Object request, Object response, String method, String path) {
        IdempotencyKeyParser.Result key = keys.parse(http.headers(request, config.header));
        if (!key.valid()) return problem(http, response, Problem.KEY_INVALID, key.problem() + ".", null);
        String description = method + " " + path + " [" + key.key() + "]";

        byte[] body;
        try {
            body = BoundedBody.read(http.body(request), config.maxRequestBytes);
        } catch (BoundedBody.TooLargeException e) {
            return problem(http, response, Problem.REQUEST_TOO_LARGE, "Requests with an " + config.header
                    + " may carry at most " + config.maxRequestBytes + " bytes.", null);
        } catch (IOException e) {
            return problem(http, response, Problem.REQUEST_UNREADABLE, "The request body could not be read: " + e.getMessage(), null);
        }
        String contentType = http.contentType(request);
        String charset = http.characterEncoding(request);
        String query = http.queryString(request);
        Map<String, String[]> form = FormBody.isForm(contentType) ? FormBody.parse(query, body, charset) : null;
        String fingerprint = RequestFingerprint.of(method, path, query, contentType, charset, body);
        String scope = tenants.scopeOf(http.principalName(request), http.header(request, "Authorization"),
                config.tenant.kind() == TenantMode.Kind.HEADER ? http.header(request, config.tenant.headerName()) : null);

        IdempotencyStore store;
        Reservation reservation;
        try {
            store = lifecycle.store();
            reservation = store.reserve(scope, key.key(), fingerprint);
        } catch (StoreException e) {
            return storeUnavailable(http, request, response, body, form, description, e);
        }
        AgentLog.debug(description + " scope " + scope + ": " + reservation.outcome());
        switch (reservation.outcome()) {
            case ACQUIRED:
            case REACQUIRED:
                return new ProtectedExchange(http, store, lifecycle.heartbeat(), reservation.token(), config.storeServerErrors,
                        config.maxResponseBytes, description, request, response, body, form);
            case REPLAY:
                return replay(http, response, reservation.response());
            case IN_FLIGHT:
                long seconds = Math.max(1, (reservation.leaseRemainingMillis() + 999) / 1000);
                return problem(http, response, Problem.IN_PROGRESS, "A request with this " + config.header
                        + " is still being processed; retry after " + seconds + " seconds.", String.valueOf(seconds));
            case MISMATCH:
                return problem(http, response, Problem.KEY_REUSED, "This " + config.header
                        + " was already used for a request with a different method, path, query or body.", null);
            case OUTCOME_UNKNOWN:
                return problem(http, response, Problem.OUTCOME_UNKNOWN, "An earlier request with this " + config.header
                        + " ended without a recorded result, so it may or may not have taken effect. It will not be run again"
                        + " automatically; an operator must resolve it.", null);
            default:
                throw new IllegalStateException("unhandled outcome " + reservation.outcome());
        }
    }

    private ServletExchange storeUnavailable(ServletAccessor http, Object request, Object response, byte[] body,
                                             Map<String, String[]> form, String description, StoreException e) {
        if (config.failureMode == AgentConfig.FailureMode.OPEN) {
            long now = System.currentTimeMillis();
            if (now - lastOpenWarning > 10_000) {
                lastOpenWarning = now;
                AgentLog.error(description + ": idempotency store unavailable; failure-mode=open runs requests UNPROTECTED", e);
            }
            return SimpleExchanges.passThrough(http.replayingRequest(request, body, form, response, null), response);
        }
        AgentLog.warn(description + ": idempotency store unavailable, answering 503: " + e.getMessage());
        return problem(http, response, Problem.STORE_UNAVAILABLE, "The idempotency store cannot be reached, so the request was"
                + " not processed. Retry later with the same " + config.header + ".", "2");
    }

    private ServletExchange replay(ServletAccessor http, Object response, StoredResponse stored) {
        List<String[]> headers = new ArrayList<>();
        for (StoredResponse.Header h : stored.headers()) {
            if (h.name().equalsIgnoreCase(ReplayHeaders.NOT_KEPT_MARKER)) {
                return problem(http, response, Problem.RESPONSE_NOT_KEPT, "The request with this " + config.header
                        + " was processed (status " + stored.status() + "), but its response was too large to be kept, so it cannot be"
                        + " replayed. It will not be run again.", null);
            }
            headers.add(new String[] {h.name(), h.value()});
        }
        headers.add(new String[] {ReplayHeaders.REPLAYED, "true"});
        send(http, response, stored.status(), headers, stored.body());
        return SimpleExchanges.ANSWERED;
    }

    private ServletExchange problem(ServletAccessor http, Object response, Problem problem, String detail, String retryAfter) {
        List<String[]> headers = new ArrayList<>();
        headers.add(new String[] {"Content-Type", Problem.MEDIA_TYPE});
        if (retryAfter != null) headers.add(new String[] {"Retry-After", retryAfter});
        send(http, response, problem.status(), headers, problem.body(detail));
        return SimpleExchanges.ANSWERED;
    }

    private static void send(ServletAccessor http, Object response, int status, List<String[]> headers, byte[] body) {
        try {
            http.send(response, status, headers, body);
        } catch (IOException e) {
            AgentLog.debug("client went away before the agent's answer was sent: " + e);
        }
    }
}
