package dev.idempotency.agent.core.jaxrs;

import dev.idempotency.agent.bootstrap.bridge.JaxrsAccessor;
import dev.idempotency.agent.bootstrap.bridge.JaxrsHandler;
import dev.idempotency.agent.core.config.AgentConfig;
import dev.idempotency.agent.core.effects.DerivedKeys;
import dev.idempotency.agent.core.effects.RequestEffects;
import dev.idempotency.agent.core.protocol.Problem;
import dev.idempotency.agent.core.gate.Answer;
import dev.idempotency.agent.core.gate.ContainerRendered;
import dev.idempotency.agent.core.gate.Decision;
import dev.idempotency.agent.core.gate.ExchangeAttributes;
import dev.idempotency.agent.core.gate.IdempotencyGate;
import dev.idempotency.agent.core.gate.JaxrsCoverage;
import dev.idempotency.agent.core.gate.PendingDecision;
import dev.idempotency.agent.core.gate.RequestCapture;
import dev.idempotency.agent.core.gate.RequestCredentials;
import dev.idempotency.agent.core.protocol.Credentials;
import dev.idempotency.agent.core.log.AgentLog;
import dev.idempotency.agent.core.lifecycle.FirstRequest;
import dev.idempotency.agent.core.protocol.RequestPath;
import dev.idempotency.agent.core.protocol.RouteTemplates;
import dev.idempotency.agent.core.telemetry.EndpointInventory;

import java.io.IOException;
import java.util.Collection;
import java.util.LinkedHashSet;
import java.util.Set;

/**
 * The JAX-RS side of the agent. Behind a servlet, the servlet layer owns the exchange and this layer contributes what
 * only it knows: the matched route, for log lines and for keys required by route. Outside any servlet container it
 * runs the whole protocol through the {@link IdempotencyGate}, with the agent's filter and writer interceptor.
 */
public final class IdempotentJaxrsHandler implements JaxrsHandler {
    private static final String EXCHANGE = "dev.idempotency.agent.jaxrs-exchange";
    /** Applications a runtime builds around the application's own (TomEE wraps every one, javax and jakarta alike). */
    private static final Set<String> RUNTIME_WRAPPERS = java.util.Collections.singleton("org.apache.openejb.server.rest.InternalApplication");

    private final AgentConfig config;
    private final IdempotencyGate gate;
    private final JaxrsEdges edges = new JaxrsEdges();
    private final RouteTemplates routes = new RouteTemplates();
    private final JaxrsCoverage coverage;

    private final FirstRequest firstRequest;
    private final JaxrsEndpoints endpoints;

    public IdempotentJaxrsHandler(AgentConfig config, IdempotencyGate gate, JaxrsCoverage coverage,
                                  FirstRequest firstRequest, EndpointInventory inventory) {
        this.firstRequest = firstRequest;
        this.endpoints = new JaxrsEndpoints(inventory, routes, config.methods);
        this.config = config;
        this.gate = gate;
        this.coverage = coverage;
    }

    @Override
    public Object withAgentFilter(Object application, Object classes) {
        // a runtime's wrapper holds the application's own classes (filter included) or the runtime's scan of them,
        // and is filled through the set it returns: neither evidence of coverage nor a set to replace
        if (RUNTIME_WRAPPERS.contains(application.getClass().getName())) return classes;
        endpoints.declare(classes);
        if (!(classes instanceof Collection) || ((Collection<?>) classes).isEmpty()) {
            coverage.uncovered(application);
            return classes; // empty: the runtime scans for resources, and adding a class would stop it from scanning
        }
        Class<?> filter = edges.filterFor(application);
        if (filter == null) {
            coverage.uncovered(application);
            return classes;
        }
        coverage.covered(application);
        if (((Collection<?>) classes).contains(filter)) return classes;
        Set<Object> withFilter = new LinkedHashSet<>((Collection<?>) classes);
        withFilter.add(filter);
        AgentLog.debug("JAX-RS application " + application.getClass().getName() + ": agent filter registered");
        return withFilter;
    }

    /**
     * Jersey applications often skip Application.getClasses() and build a ResourceConfig (or a subclass) instead.
     * Jersey's own ResourceConfig subclasses are left alone: they wrap or copy an application that already has it.
     */
    @Override
    public void registerAgentFilter(Object resourceConfig) {
        Class<?> type = resourceConfig.getClass();
        if (type.getName().startsWith("org.glassfish.jersey.") && !type.getName().equals(JaxrsEdges.JERSEY_RESOURCE_CONFIG)) return;
        endpoints.undeclared();
        Class<?> filter = edges.filterFor(resourceConfig);
        if (filter == null) {
            coverage.uncovered(resourceConfig);
            return;
        }
        try {
            type.getMethod("register", Class.class).invoke(resourceConfig, filter);
            coverage.covered(resourceConfig);
            AgentLog.debug("Jersey ResourceConfig " + type.getName() + ": agent filter registered");
        } catch (ReflectiveOperationException | RuntimeException e) {
            coverage.uncovered(resourceConfig);
            AgentLog.warn("could not register the agent's filter into " + type.getName() + "; its routes are not seen by the agent", e);
        }
    }

    @Override
    public void request(JaxrsAccessor jaxrs, Object request, Object resourceInfo) {
        firstRequest.onRequest();
        // first: a request the servlet layer took is decided here whatever method it now shows (a method override)
        Object handled = jaxrs.property(request, ExchangeAttributes.HANDLED);
        String method = jaxrs.method(request);
        if (handled == null && !config.methods.contains(method)) return;
        String route = routes.of(jaxrs.resourceClass(resourceInfo), jaxrs.resourceMethod(resourceInfo));
        if (handled != null) {
            // behind a servlet that owns the exchange: it learns the route, and whether the resource is suspended
            if (route != null) jaxrs.setProperty(request, ExchangeAttributes.ROUTE, route);
            if (jaxrs.isSuspended(resourceInfo)) jaxrs.setProperty(request, ExchangeAttributes.ASYNC_RESOURCE, Boolean.TRUE);
            if (handled instanceof PendingDecision) {
                decideForServlet(jaxrs, request, (PendingDecision) handled, route, resourceInfo);
            }
            return;
        }
        String path = RequestPath.normalise(jaxrs.path(request));
        if (!config.include.matches(path) || config.exclude.matches(path)) {
            // left alone; one without a key still counts for its endpoint, as the servlet layer counts it
            if (jaxrs.header(request, config.header) == null) {
                endpoints.unkeyed(jaxrs, request, resourceInfo, route, path, false);
            }
            return;
        }
        if (jaxrs.header(request, config.header) == null) {
            boolean refused = config.required.requiresRoute(route) || config.required.paths().matches(path);
            endpoints.unkeyed(jaxrs, request, resourceInfo, route, path, refused);
            if (refused) {
                jaxrs.setProperty(request, ExchangeAttributes.HANDLED, Boolean.TRUE);
                AgentLog.debug((route != null ? route : method) + " (" + path + "): no key where one is required");
                abort(jaxrs, request, gate.keyMissing(method));
            }
            return;
        }
        jaxrs.setProperty(request, ExchangeAttributes.HANDLED, Boolean.TRUE);
        RequestCapture capture = gate.capture(method, path, jaxrs.query(request), jaxrs.contentType(request),
                jaxrs.headers(request, config.header), () -> jaxrs.entity(request), declaredLength(jaxrs, request));
        if (capture.problem() != null) {
            endpoints.keyed(jaxrs, request, resourceInfo, route, path, capture.refusal());
            abort(jaxrs, request, capture.problem());
            return;
        }
        Decision decision = gate.decide(capture, credentials(jaxrs, request), route);
        endpoints.keyed(jaxrs, request, resourceInfo, route, path, decision.outcome());
        if (decision.answer() != null) {
            capture.releaseMemory();
            abort(jaxrs, request, decision.answer());
            return;
        }
        jaxrs.replaceEntity(request, capture.bytes());
        if (decision.admission() == null) return; // failure-mode open: runs unprotected
        boolean suspended = jaxrs.isSuspended(resourceInfo);
        if (suspended) {
            // A suspended resource's work goes on on other threads, and its end comes on one of them: under
            // recovery=transaction it is noted as unwatched now, and this thread, which serves other requests next, is not.
            boolean noted = decision.admission().continuesOffThread();
            RequestEffects.unwatchCurrentThread();
            DerivedKeys.unbindCurrentThread();
            if (!noted) { // its work would run unwatched and unmarked: it does not run
                if (decision.admission().end()) decision.admission().release("its asynchronous work could not be noted");
                capture.releaseMemory();
                abort(jaxrs, request, Answer.problem(Problem.STORE_UNAVAILABLE, "The idempotency store cannot note this request's"
                        + " asynchronous work, so it was not run.", "1"));
                return;
            }
        }
        jaxrs.setProperty(request, EXCHANGE, new JaxrsExchange(decision.admission(), capture, config.maxResponseBytes, gate.memory(),
                suspended));
    }

    /**
     * The length the request declares: a body declared too large is refused before a byte of it is read, or awaited
     * from a client that expects 100 Continue. -1 when unknown: absent, malformed, negative, or beside a
     * Transfer-Encoding (which overrides it).
     */
    private static long declaredLength(JaxrsAccessor jaxrs, Object request) {
        String declared = jaxrs.header(request, "Content-Length");
        if (declared == null || jaxrs.header(request, "Transfer-Encoding") != null) return -1;
        try {
            long length = Long.parseLong(declared.trim());
            return length >= 0 ? length : -1;
        } catch (NumberFormatException e) {
            return -1;
        }
    }

    /**
     * The servlet layer left this request's decision to the JAX-RS layer, which runs after the runtime's
     * authentication and authorisation filters: a replay is never served to a request they refuse, and the
     * SecurityContext's principal counts for the scope.
     */
    private void decideForServlet(JaxrsAccessor jaxrs, Object request, PendingDecision pending, String route,
                                  Object resourceInfo) {
        PendingDecision.Deferred waiting = pending.deferred();
        if (waiting == null) return;
        pending.markDecided();
        Decision decision = gate.decide(pending.capture(), credentials(jaxrs, request), route);
        endpoints.keyed(jaxrs, request, resourceInfo, route, pending.capture().path(), decision.outcome());
        if (decision.answer() != null) abort(jaxrs, request, decision.answer());
        else waiting.admitted(decision.admission());
    }

    /** The JAX-RS principal (the runtime's SecurityContext, which its authentication filters set) and the credentials. */
    private Credentials credentials(JaxrsAccessor jaxrs, Object request) {
        return RequestCredentials.of(config, jaxrs.principalName(request), name -> jaxrs.headers(request, name), jaxrs.cookies(request), null);
    }

    @Override
    public void response(JaxrsAccessor jaxrs, Object request, Object response) {
        Object exchange = jaxrs.property(request, EXCHANGE);
        if (exchange instanceof JaxrsExchange) ((JaxrsExchange) exchange).responded(jaxrs, response);
    }

    @Override
    public void aroundWrite(JaxrsAccessor jaxrs, Object writer) throws IOException {
        Object exchange = jaxrs.property(writer, EXCHANGE);
        if (exchange instanceof JaxrsExchange) ((JaxrsExchange) exchange).write(jaxrs, writer);
        else jaxrs.proceed(writer);
    }

    private static void abort(JaxrsAccessor jaxrs, Object request, Answer answer) {
        jaxrs.abort(request, answer.status(), ContainerRendered.withoutMarkers(answer.headers()), answer.body());
    }
}
