package dev.idempotency.agent.core.jaxrs;

import dev.idempotency.agent.bootstrap.bridge.JaxrsAccessor;
import dev.idempotency.agent.core.config.HttpMethods;
import dev.idempotency.agent.core.protocol.RouteTemplates;
import dev.idempotency.agent.core.telemetry.EndpointInventory;
import dev.idempotency.agent.core.telemetry.EndpointInventory.Endpoint;
import dev.idempotency.agent.core.telemetry.Outcome;

import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.util.Collection;
import java.util.LinkedHashSet;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The JAX-RS side of the endpoint inventory: a request's endpoint is its application (the base URI's path, context
 * and application path) and its resource method's route template. Found once per resource method and kept with its
 * class (so it goes with a redeployed application); every fault is counted by the inventory and never reaches the
 * request.
 */
final class JaxrsEndpoints {
    private final EndpointInventory inventory;
    private final RouteTemplates routes;
    private final HttpMethods methods;
    private final ClassValue<Map<Method, Endpoint>> byResource = new ClassValue<Map<Method, Endpoint>>() {
        @Override
        protected Map<Method, Endpoint> computeValue(Class<?> type) {
            return new ConcurrentHashMap<>();
        }
    };

    JaxrsEndpoints(EndpointInventory inventory, RouteTemplates routes, HttpMethods methods) {
        this.inventory = inventory;
        this.routes = routes;
        this.methods = methods;
    }

    /** The routes of an application's classes ({@code Application.getClasses()}), before any request. */
    void declare(Object classes) {
        try {
            if (!(classes instanceof Collection) || ((Collection<?>) classes).isEmpty()) {
                inventory.routesUndeclared(); // the runtime scans for resources: their routes come with requests
                return;
            }
            Set<String> declared = new LinkedHashSet<>();
            for (Object c : (Collection<?>) classes) {
                if (!(c instanceof Class)) continue;
                for (Method m : ((Class<?>) c).getMethods()) {
                    if (m.getDeclaringClass() == Object.class || Modifier.isStatic(m.getModifiers())) continue;
                    String route = routes.of((Class<?>) c, m);
                    if (route != null && methods.contains(route.substring(0, route.indexOf(' ')))) declared.add(route);
                }
            }
            if (!declared.isEmpty()) inventory.declareRoutes(declared);
        } catch (Throwable t) {
            inventory.failed();
        }
    }

    /** A Jersey ResourceConfig: its resources are registered on it, not listed; their routes come with requests. */
    void undeclared() {
        inventory.routesUndeclared();
    }

    void unkeyed(JaxrsAccessor jaxrs, Object request, Object resourceInfo, String route, String path, boolean refused) {
        try {
            EndpointInventory.Endpoint endpoint = of(jaxrs, request, resourceInfo, route, path);
            if (endpoint == null) return;
            endpoint.unkeyed();
            if (refused) endpoint.keyMissing();
        } catch (Throwable t) {
            inventory.failed();
        }
    }

    void keyed(JaxrsAccessor jaxrs, Object request, Object resourceInfo, String route, String path, Outcome outcome) {
        try {
            EndpointInventory.Endpoint endpoint = of(jaxrs, request, resourceInfo, route, path);
            if (endpoint != null) endpoint.keyed(outcome);
        } catch (Throwable t) {
            inventory.failed();
        }
    }

    private Endpoint of(JaxrsAccessor jaxrs, Object request, Object resourceInfo, String route, String path) {
        if (route == null) return null;
        Class<?> resource = jaxrs.resourceClass(resourceInfo);
        Method method = jaxrs.resourceMethod(resourceInfo);
        Map<Method, EndpointInventory.Endpoint> known = byResource.get(resource);
        EndpointInventory.Endpoint endpoint = known.get(method);
        if (endpoint != null) return endpoint;
        String base = jaxrs.basePath(request);
        if (base == null) base = "";
        if (base.endsWith("/")) base = base.substring(0, base.length() - 1);
        EndpointInventory.Application app = inventory.application(base);
        if (app == null) app = inventory.register(base, null);
        endpoint = app == null ? inventory.overflow() : app.route(route, path);
        known.put(method, endpoint);
        return endpoint;
    }
}
