package dev.idempotency.agent.core.servlet;

import dev.idempotency.agent.bootstrap.bridge.ServletAccessor;
import dev.idempotency.agent.core.telemetry.EndpointInventory;
import dev.idempotency.agent.core.telemetry.Outcome;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collection;
import java.util.List;

/**
 * The servlet side of the endpoint inventory: a request's endpoint is its web application (by context path) and its
 * servlet (by name), labelled with the servlet's mappings from the container's registrations, read at the
 * application's first handled request. Every fault is counted by the inventory and never reaches the request.
 */
final class ServletEndpoints {
    /** The container's own servlets (default, JSP): never an application's endpoint. */
    private static final String[] CONTAINER_PACKAGES = {"org.apache.catalina.", "org.apache.jasper.",
        "org.eclipse.jetty.", "io.undertow.", "org.glassfish.", "com.ibm.ws.", "org.apache.openejb.",
        "org.apache.tomee."};

    private final EndpointInventory inventory;

    ServletEndpoints(EndpointInventory inventory) {
        this.inventory = inventory;
    }

    /** The endpoint a request at {@code component} (a servlet, or an application filter) counts for. */
    EndpointInventory.Endpoint of(ServletAccessor http, Object component, Object request, String method) {
        String contextPath = http.contextPath(request);
        EndpointInventory.Application app = inventory.application(contextPath);
        if (app == null) app = inventory.register(contextPath, () -> registrations(http, request));
        if (app == null) return inventory.overflow();
        String name = http.servletName(component);
        String key = name != null ? name : EndpointInventory.FILTER + component.getClass().getName();
        EndpointInventory.Endpoint endpoint = app.existing(method, key);
        if (endpoint != null) return endpoint;
        if (!app.knows(key)) {
            app.learn(name != null ? registrations(http, request) : filter(http, request, component, key));
        }
        return app.servlet(method, key);
    }

    void keyed(ServletAccessor http, Object component, Object request, String method, Outcome outcome) {
        try {
            of(http, component, request, method).keyed(outcome);
        } catch (Throwable t) {
            inventory.failed();
        }
    }

    /** 400 key-missing; {@code counted} when the request was already counted as one without a key at its servlet. */
    void keyMissing(ServletAccessor http, Object component, Object request, String method, boolean counted) {
        try {
            EndpointInventory.Endpoint endpoint = of(http, component, request, method);
            if (!counted) endpoint.unkeyed();
            endpoint.keyMissing();
        } catch (Throwable t) {
            inventory.failed();
        }
    }

    void failed() {
        inventory.failed();
    }

    private Collection<EndpointInventory.Mapping> registrations(ServletAccessor http, Object request) {
        List<EndpointInventory.Mapping> mappings = new ArrayList<>();
        for (String[] servlet : http.servletRegistrations(request)) {
            boolean runtime = isJaxrsRuntime(servlet[1]);
            boolean listed = !runtime && !isContainers(servlet[1]);
            List<String> patterns = Arrays.asList(servlet).subList(2, servlet.length);
            mappings.add(new EndpointInventory.Mapping(servlet[0], patterns, listed, listed || runtime));
        }
        return mappings;
    }

    /** An application filter (one that serves requests itself) as an endpoint: its URL patterns, by its class. */
    private static List<EndpointInventory.Mapping> filter(ServletAccessor http, Object request, Object component,
                                                          String key) {
        List<String> patterns = new ArrayList<>();
        for (String[] filter : http.filterRegistrations(request)) {
            if (!filter[1].equals(component.getClass().getName())) continue;
            patterns.addAll(Arrays.asList(filter).subList(2, filter.length));
        }
        return java.util.Collections.singletonList(new EndpointInventory.Mapping(key, patterns, false, true));
    }

    private static boolean isContainers(String className) {
        for (String p : CONTAINER_PACKAGES) if (className.startsWith(p)) return true;
        return false;
    }

    private static boolean isJaxrsRuntime(String className) {
        return className.equals("org.glassfish.jersey.servlet.ServletContainer")
                || className.equals("org.jboss.resteasy.plugins.server.servlet.HttpServletDispatcher")
                || className.startsWith("org.jboss.resteasy.") || className.startsWith("org.apache.cxf.");
    }
}
