package dev.idempotency.agent.core.servlet;

import dev.idempotency.agent.bootstrap.bridge.ServletAccessor;
import dev.idempotency.agent.bootstrap.bridge.ServletExchange;
import dev.idempotency.agent.bootstrap.bridge.ServletHandler;
import dev.idempotency.agent.core.config.AgentConfig;
import dev.idempotency.agent.core.gate.Answer;
import dev.idempotency.agent.core.gate.Decision;
import dev.idempotency.agent.core.gate.ExchangeAttributes;
import dev.idempotency.agent.core.gate.IdempotencyGate;
import dev.idempotency.agent.core.gate.JaxrsCoverage;
import dev.idempotency.agent.core.gate.RateLimitedLog;
import dev.idempotency.agent.core.gate.PendingDecision;
import dev.idempotency.agent.core.gate.RequestCapture;
import dev.idempotency.agent.core.gate.RequestCredentials;
import dev.idempotency.agent.core.log.AgentLog;
import dev.idempotency.agent.core.protocol.Credentials;
import dev.idempotency.agent.core.protocol.RequestPath;
import dev.idempotency.agent.core.lifecycle.FirstRequest;
import dev.idempotency.agent.core.telemetry.EndpointInventory;

import java.io.IOException;

/**
 * The servlet side of the agent, for both namespaces. A keyed request is taken at its outermost entry (the first
 * filter or servlet it reaches): its body is read once and every filter and servlet after that reads it from the
 * agent. It is decided at the last point before application code: the entry to the servlet (any {@code Servlet}),
 * or to a filter that is itself the application (Struts 2 and the like), after the application's own authentication
 * filters have run. Forwards, includes, error dispatches and nested servlets are never handled a second time.
 *
 * <p>A request the agent does not handle costs a method comparison and one header lookup per filter and servlet.
 */
public final class IdempotentServletHandler implements ServletHandler {
    static final String PENDING_ATTRIBUTE = "dev.idempotency.agent.pending";
    /** A request the servlet layer has looked at and leaves alone (not included, or excluded). */
    private static final String IGNORED_ATTRIBUTE = "dev.idempotency.agent.ignored";

    private final AgentConfig config;
    private final IdempotencyGate gate;
    private final ServletEdges edges = new ServletEdges();
    private final ApplicationFilters applicationFilters;
    private final JaxrsCoverage jaxrsCoverage;
    /** JAX-RS runtimes' servlets and the filters that serve as them (Jersey's as either, TomEE's CXF filter). */
    private final ClassValue<Boolean> jaxrsContainers = new ComponentsNamed(
            "org.glassfish.jersey.servlet.ServletContainer",
            "org.jboss.resteasy.plugins.server.servlet.HttpServletDispatcher",
            "org.apache.tomee.webservices.CXFJAXRSFilter");
    /** JAX-RS runtimes' servlets and filters, whose requests the JAX-RS layer counts by route. */
    private final ClassValue<Boolean> jaxrsRuntimes = new ComponentsNamed(
            "org.glassfish.jersey.servlet.ServletContainer",
            "org.jboss.resteasy.plugins.server.servlet.HttpServletDispatcher",
            "org.jboss.resteasy.plugins.server.servlet.FilterDispatcher",
            "org.apache.tomee.webservices.CXFJAXRSFilter");
    private final RateLimitedLog faults = new RateLimitedLog(10_000);
    private final RateLimitedLog undecided = new RateLimitedLog(60_000);

    private final RequestsBeforeAttach beforeAttach;

    private final FirstRequest firstRequest;
    private final ServletEndpoints endpoints;

    public IdempotentServletHandler(AgentConfig config, IdempotencyGate gate, JaxrsCoverage jaxrsCoverage, RequestsBeforeAttach beforeAttach,
                                    FirstRequest firstRequest, EndpointInventory inventory) {
        this.config = config;
        this.endpoints = new ServletEndpoints(inventory);
        this.firstRequest = firstRequest;
        this.gate = gate;
        this.jaxrsCoverage = jaxrsCoverage;
        this.beforeAttach = beforeAttach;
        this.applicationFilters = new ApplicationFilters(config.applicationFilters);
    }

    @Override
    public ServletExchange enter(Object component, boolean servlet, Object request, Object response) {
        firstRequest.onRequest();
        ServletAccessor http = edges.forRequest(request.getClass());
        if (http == null) return null;
        String method = http.method(request);
        boolean handledMethod = config.methods.contains(method);
        String keyField = handledMethod ? http.header(request, config.header) : null;
        if (!handledMethod || keyField != null || (!servlet && !applicationFilters.contains(component.getClass()))) {
            return enter(http, component, servlet, request, response, method, handledMethod, keyField);
        }
        UnkeyedEntry counted = countUnkeyed(http, component, request, method);
        ServletExchange exchange;
        try {
            exchange = enter(http, component, servlet, request, response, method, true, null);
        } catch (RuntimeException | Error e) {
            if (counted != null) UnkeyedEntry.end(counted.around(null, null, null));
            throw e;
        }
        return counted == null ? exchange : counted.around(exchange, request, response);
    }

    /**
     * A request of a handled method without a key, at a servlet or an application filter: counted once for its
     * endpoint, at the outermost such entry of its initial dispatch (an HttpServlet enters twice, public and protected
     * service; an application filter may pass it on to a servlet). Null when not counted here (nested, another
     * dispatch, a JAX-RS runtime whose own layer counts it by route).
     */
    private UnkeyedEntry countUnkeyed(ServletAccessor http, Object component, Object request, String method) {
        try {
            if (!http.isInitialDispatch(request) || jaxrsRuntimes.get(component.getClass())) return null;
            UnkeyedEntry entry = UnkeyedEntry.begin(request);
            if (entry == null) return null;
            endpoints.of(http, component, request, method).unkeyed();
            return entry;
        } catch (Throwable t) {
            endpoints.failed();
            return null;
        }
    }

    private ServletExchange enter(ServletAccessor http, Object component, boolean servlet, Object request,
                                  Object response, String method, boolean handledMethod, String keyField) {
        if (!handledMethod || (keyField == null && config.required.paths().isEmpty())) {
            // Servlet 6.1 dispatches to an error page as GET: only once the agent has ever waited for one is it looked for
            if (!handledMethod && ErrorPageExchange.everAwaited() && http.isErrorDispatch(request)) return errorPage(http, request, response);
            // A request taken earlier may since show another method or hide its key behind a wrapper (Spring's
            // HiddenHttpMethodFilter): it is still decided where it reaches a servlet. The container's own request,
            // unwrapped, costs one instanceof here.
            return servlet && http.isCaptured(request)
                    ? pendingDecision(http, component, true, request, response, http.attribute(request, ExchangeAttributes.HANDLED)) : null;
        }
        if (keyField != null && http.isAsyncDispatch(request)) {
            ServletExchange redispatch = asyncRedispatch(http, request, response);
            if (redispatch != null) return redispatch;
        }
        if (keyField != null && http.isErrorDispatch(request)) return errorPage(http, request, response);
        Object state = http.attribute(request, ExchangeAttributes.HANDLED);
        if (state != null) return pendingDecision(http, component, servlet, request, response, state);
        if (!http.isInitialDispatch(request) || http.attribute(request, IGNORED_ATTRIBUTE) != null) return null;
        if (beforeAttach.isCurrentRequestOlder()) {
            http.setAttribute(request, IGNORED_ATTRIBUTE, Boolean.TRUE);
            return null;
        }
        return guarded(http, response, () -> take(http, component, servlet, request, response, method, keyField != null));
    }

    /**
     * A request taken at its outermost entry but not decided yet is decided at the first decision point it reaches, on
     * its initial dispatch, a forward or an asynchronous dispatch (a filter may forward it, or start an asynchronous
     * cycle, before any servlet runs); never on an include or an error dispatch.
     */
    private ServletExchange pendingDecision(ServletAccessor http, Object component, boolean servlet, Object request, Object response, Object state) {
        if (!(state instanceof PendingDecision)) return null;
        PendingDecision pending = (PendingDecision) state;
        if (pending.decided() || pending.deferredBy() == component) return null;
        if (!servlet && !applicationFilters.contains(component.getClass())) return null;
        boolean async = http.isAsyncDispatch(request);
        if (!async && !http.isInitialDispatch(request) && !http.isForwardDispatch(request)) return null;
        // an asynchronous dispatch may carry the container's own request, whose body the agent has consumed
        Object current = async && pending.capture() != null ? http.capturedRequest(request, pending.capture()) : request;
        return guarded(http, response, () -> decide(http, pending, component, current, response));
    }

    /** The outermost entry of the error page dispatched for a recorded sendError: the page is captured from here. */
    private static ServletExchange errorPage(ServletAccessor http, Object request, Object response) {
        Object page = http.attribute(request, ErrorPageExchange.ATTRIBUTE);
        if (!(page instanceof ErrorPageExchange)) return null;
        http.setAttribute(request, ErrorPageExchange.ATTRIBUTE, null);
        return ((ErrorPageExchange) page).begin(request, response);
    }

    @Override
    public void exit(ServletExchange exchange, Object request, Throwable thrown) {
        try {
            UnkeyedEntry.end(exchange);
        } catch (Throwable t) {
            endpoints.failed(); // bookkeeping only: the exchange's own end below must run whatever happens here
        }
        if (exchange instanceof ErrorPageExchange) {
            ((ErrorPageExchange) exchange).exited(thrown);
        } else if (exchange instanceof ProtectedExchange) {
            ((ProtectedExchange) exchange).serviceExited(request, thrown);
        } else if (exchange instanceof SimpleExchanges.AsyncRedispatch) {
            ((SimpleExchanges.AsyncRedispatch) exchange).exchange.serviceExited(request, thrown);
        } else if (exchange instanceof SimpleExchanges.Entry) {
            SimpleExchanges.Entry entry = (SimpleExchanges.Entry) exchange;
            PendingDecision pending = entry.pending;
            boolean endedUndecided = !pending.decided() && pending.deferred() == null && pending.capture() != null;
            // ended before any decision (the application's own filter answered): nothing will read the body again
            if (endedUndecided && !entry.asyncStarted(request)) pending.capture().releaseMemory();
            // a refusal by the application's own filters (401, 403, or a redirect to its login page) is no cause for
            // concern: nothing ran, and naming a security filter would move the decision in front of authentication
            if (endedUndecided && thrown == null && entry.status() < 300) {
                undecided.run(() -> AgentLog.warn(pending.capture().description() + ": the request ended without reaching a servlet"
                        + " or an application filter, so the agent could not protect it (if a filter serves it, name that"
                        + " filter in idempotency.application-filters)"));
            }
        }
    }

    /** Step one, at the outermost entry: take the body (or note that a required key is missing). */
    private ServletExchange take(ServletAccessor http, Object component, boolean servlet, Object request, Object response,
                                 String method, boolean keyed) {
        boolean decisionPoint = servlet || applicationFilters.contains(component.getClass());
        String path = RequestPath.normalise(http.requestUri(request));
        if (!config.include.matches(path) || config.exclude.matches(path) || (!keyed && !config.required.paths().matches(path))) {
            // left alone, and marked so only for the servlet layer: a JAX-RS layer behind still enforces keys required by route
            http.setAttribute(request, IGNORED_ATTRIBUTE, Boolean.TRUE);
            return null;
        }
        if (!keyed) {
            PendingDecision pending = PendingDecision.keyMissing(method);
            http.setAttribute(request, ExchangeAttributes.HANDLED, pending);
            return decisionPoint ? decide(http, pending, component, request, response) : new SimpleExchanges.Entry(http, pending, request, response);
        }
        RequestCapture capture = gate.capture(method, path, http.queryString(request), http.contentType(request),
                http.headers(request, config.header), () -> http.body(request), http.contentLength(request));
        if (capture.problem() != null) {
            http.setAttribute(request, ExchangeAttributes.HANDLED, Boolean.TRUE);
            if (servlet) endpoints.keyed(http, component, request, method, capture.refusal());
            return answer(http, response, capture.problem());
        }
        PendingDecision pending = PendingDecision.of(capture);
        http.setAttribute(request, ExchangeAttributes.HANDLED, pending);
        Object captured = http.capturedRequest(request, capture);
        return decisionPoint ? decide(http, pending, component, captured, response) : new SimpleExchanges.Entry(http, pending, captured, response);
    }

    /** Step two, where the application's code starts: reserve, replay or refuse. */
    private ServletExchange decide(ServletAccessor http, PendingDecision pending, Object component, Object request,
                                   Object response) {
        RequestCapture capture = pending.capture();
        if (capture != null && pending.deferredBy() == null && jaxrsContainers.get(component.getClass())
                && jaxrsCoverage.coversCurrentApplication()) {
            // a JAX-RS runtime with the agent's filter inside: it decides after the runtime's own authentication; if
            // the runtime passes the request on undecided (no resource matched), the next decision point decides
            ProtectedExchange deferred = new ProtectedExchange(http, null, capture, config.header, config.maxResponseBytes,
                    config.retryStatuses, gate.memory(), request, response);
            pending.deferTo(deferred, component);
            deferred.awaiting(pending);
            AgentLog.debug(capture.description() + ": decided by the agent's JAX-RS filter, after the runtime's authentication");
            return deferred;
        }
        // a JAX-RS filter that left the decision to its runtime, which passed the request on down the chain: the
        // exchange it made takes this decision's outcome, so that one exchange owns the response
        PendingDecision.Deferred waiting = pending.deferred();
        pending.markDecided();
        if (capture == null) {
            // counted as one without a key on entry here (a decision point), unless a JAX-RS runtime's layer counts it
            boolean counted = !jaxrsRuntimes.get(component.getClass());
            endpoints.keyMissing(http, component, request, pending.method(), counted);
            return answer(http, response, gate.keyMissing(pending.method()));
        }
        Decision decision = gate.decide(capture, credentials(http, request), null);
        endpoints.keyed(http, component, request, capture.method(), decision.outcome());
        if (decision.answer() != null) {
            capture.releaseMemory(); // the application does not run: nothing reads the body any more
            return answer(http, response, decision.answer());
        }
        if (waiting != null) {
            waiting.admitted(decision.admission());
            return SimpleExchanges.passThrough(request, response);
        }
        if (decision.admission() == null) return SimpleExchanges.passThrough(request, response); // failure-mode open
        try {
            return new ProtectedExchange(http, decision.admission(), capture, config.header,
                    config.maxResponseBytes, config.retryStatuses, gate.memory(), request, response);
        } catch (RuntimeException | LinkageError e) {
            capture.releaseMemory();
            if (decision.admission().end()) decision.admission().release("the agent could not wrap the request: " + e);
            throw e;
        }
    }

    private Credentials credentials(ServletAccessor http, Object request) {
        return RequestCredentials.of(config, http.principalName(request), name -> http.headers(request, name), http.cookies(request),
                http.liveUrlSessionId(request));
    }

    private ServletExchange asyncRedispatch(ServletAccessor http, Object request, Object response) {
        Object pending = http.attribute(request, PENDING_ATTRIBUTE);
        if (!(pending instanceof ProtectedExchange)) return null;
        http.setAttribute(request, PENDING_ATTRIBUTE, null);
        return new SimpleExchanges.AsyncRedispatch((ProtectedExchange) pending, request, response);
    }

    /** Nothing the agent trips over may let a keyed request run unprotected: it is refused with 503 instead. */
    private ServletExchange guarded(ServletAccessor http, Object response, Step step) {
        try {
            return step.run();
        } catch (Throwable t) {
            faults.run(() -> AgentLog.error("could not process a keyed request; it was refused with 503, not run", t));
            return answer(http, response, gate.agentFault());
        }
    }

    private interface Step {
        ServletExchange run();
    }

    private static ServletExchange answer(ServletAccessor http, Object response, Answer answer) {
        try {
            AnswerSender.send(http, response, answer.status(), answer.headers(), answer.body(), true);
        } catch (IOException | RuntimeException e) {
            AgentLog.debug("the agent's answer could not be sent completely: " + e);
        }
        return SimpleExchanges.ANSWERED;
    }
}
