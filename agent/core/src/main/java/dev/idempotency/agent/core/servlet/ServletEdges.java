package dev.idempotency.agent.core.servlet;

import dev.idempotency.agent.bootstrap.bridge.ServletAccessor;
import dev.idempotency.agent.core.edge.EdgeLoader;
import dev.idempotency.agent.core.log.AgentLog;


/**
 * Finds the servlet API a request belongs to and the edge that speaks it. The edge classes are defined in a small
 * loader whose parent is the loader of the container's servlet API, so they extend the real wrapper types; a
 * {@link ClassValue} ties each edge to the request class it serves and lets both go when a web application (whose
 * own request wrappers may be among them) is undeployed.
 */
final class ServletEdges {
    static final String JAVAX_REQUEST = "javax.servlet.http.HttpServletRequest";
    static final String JAKARTA_REQUEST = "jakarta.servlet.http.HttpServletRequest";

    /** Per request class: the accessor for its servlet API, or null when it is no HTTP request the agent knows. */
    private final ClassValue<ServletAccessor> byRequestClass = new ClassValue<ServletAccessor>() {
        @Override
        protected ServletAccessor computeValue(Class<?> requestClass) {
            Class<?> api = httpRequestInterface(requestClass);
            return api == null ? null : byApiClass.get(api);
        }
    };

    /** Per HttpServletRequest interface (one per servlet API loader): its edge. */
    private final ClassValue<ServletAccessor> byApiClass = new ClassValue<ServletAccessor>() {
        @Override
        protected ServletAccessor computeValue(Class<?> httpRequest) {
            String edgePackage = httpRequest.getName().startsWith("javax.")
                    ? "dev.idempotency.agent.servlet.javax" : "dev.idempotency.agent.servlet.jakarta";
            try {
                ClassLoader edge = new EdgeLoader(httpRequest.getClassLoader(), edgePackage + ".");
                Class<?> accessor = Class.forName(edgePackage + ".ServletApiAccessor", true, edge);
                AgentLog.debug("servlet edge " + edgePackage + " ready for " + httpRequest.getClassLoader());
                return (ServletAccessor) accessor.getDeclaredConstructor().newInstance();
            } catch (ReflectiveOperationException | LinkageError | RuntimeException e) {
                AgentLog.error("cannot attach to the servlet API of " + httpRequest.getClassLoader()
                        + "; requests of its servlets are NOT protected", e);
                return null;
            }
        }
    };

    ServletAccessor forRequest(Class<?> requestClass) {
        return byRequestClass.get(requestClass);
    }

    private static Class<?> httpRequestInterface(Class<?> type) {
        for (Class<?> c = type; c != null; c = c.getSuperclass()) {
            for (Class<?> i : c.getInterfaces()) {
                if (i.getName().equals(JAVAX_REQUEST) || i.getName().equals(JAKARTA_REQUEST)) return i;
                Class<?> inherited = httpRequestInterface(i);
                if (inherited != null) return inherited;
            }
        }
        return null;
    }
}
