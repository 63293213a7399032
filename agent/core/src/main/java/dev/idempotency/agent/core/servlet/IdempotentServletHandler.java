package dev.idempotency.agent.core.servlet;

import dev.idempotency.agent.bootstrap.bridge.ServletAccessor;
import dev.idempotency.agent.bootstrap.bridge.ServletExchange;
import dev.idempotency.agent.bootstrap.bridge.ServletHandler;
import dev.idempotency.agent.core.config.AgentConfig;
import dev.idempotency.agent.core.gate.Answer;
import dev.idempotency.agent.core.gate.Decision;
import dev.idempotency.agent.core.gate.ExchangeAttributes;
import dev.idempotency.agent.core.gate.IdempotencyGate;
import dev.idempotency.agent.core.gate.KeyedRequest;
import dev.idempotency.agent.core.log.AgentLog;
import dev.idempotency.agent.core.protocol.TenantMode;

import java.io.IOException;

/**
 * The servlet side of the agent, for both namespaces: which requests it handles (method, key header, path, initial
 * dispatch, outermost servlet), and how a handled one is put through the {@link IdempotencyGate}.
 *
 * <p>A request the agent does not handle costs a method comparison and one header lookup.
 */
public final class IdempotentServletHandler implements ServletHandler {
    static final String PENDING_ATTRIBUTE = "dev.idempotency.agent.pending";

    private final AgentConfig config;
    private final IdempotencyGate gate;
    private final ServletEdges edges = new ServletEdges();

    public IdempotentServletHandler(AgentConfig config, IdempotencyGate gate) {
        this.config = config;
        this.gate = gate;
    }

    @Override
    public ServletExchange enter(Object servlet, Object request, Object response) {
        ServletAccessor http = edges.forServlet(servlet.getClass());
        if (http == null) return null;
        String method = http.method(request);
        if (!config.methods.contains(method)) return null;
        String keyField = http.header(request, config.header);
        if (keyField == null && config.required.paths().isEmpty()) return null;
        if (!http.isInitialDispatch(request)) {
            return keyField != null && http.isAsyncDispatch(request) ? asyncRedispatch(http, request, response) : null;
        }
        if (http.attribute(request, ExchangeAttributes.HANDLED) != null) return null; // an inner servlet of a handled request
        String path = http.requestUri(request);
        if (!config.include.matches(path) || config.exclude.matches(path)) return null;
        if (keyField == null) {
            if (!config.required.paths().matches(path)) return null;
            http.setAttribute(request, ExchangeAttributes.HANDLED, Boolean.TRUE);
            return answer(http, response, gate.keyMissing(method));
        }
        http.setAttribute(request, ExchangeAttributes.HANDLED, Boolean.TRUE);
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
        Decision decision = gate.decide(new KeyedRequest(method, path, http.queryString(request), http.contentType(request),
                http.characterEncoding(request), http.headers(request, config.header), http.principalName(request),
                http.header(request, "Authorization"),
                config.tenant.kind() == TenantMode.Kind.HEADER ? http.header(request, config.tenant.headerName()) : null,
                () -> http.body(request), null));
        if (decision.answer() != null) return answer(http, response, decision.answer());
        if (decision.admission() == null) {
            return SimpleExchanges.passThrough(http.replayingRequest(request, decision.body(), decision.form(), response, null), response);
        }
        return new ProtectedExchange(http, decision.admission(), config.storeServerErrors, config.maxResponseBytes,
                request, response, decision.body(), decision.form());
    }

    private static ServletExchange answer(ServletAccessor http, Object response, Answer answer) {
        try {
            http.send(response, answer.status(), answer.headers(), answer.body());
        } catch (IOException e) {
            AgentLog.debug("client went away before the agent's answer was sent: " + e);
        }
        return SimpleExchanges.ANSWERED;
    }
}
