package dev.idempotency.agent.core.servlet;

import dev.idempotency.agent.bootstrap.bridge.ServletAccessor;
import dev.idempotency.agent.core.edge.EdgeLoader;
import dev.idempotency.agent.core.log.AgentLog;


/**
 * Finds the servlet API a servlet class was built against and the edge that speaks it. The edge classes are defined
 * in a small loader whose parent is the loader of the container's servlet API, so they extend the real wrapper types;
 * a {@link ClassValue} ties each edge to the servlet class it serves and lets both go when a web application is
 * undeployed.
 */
final class ServletEdges {
    static final String JAVAX_BASE = "javax.servlet.http.HttpServlet";
    static final String JAKARTA_BASE = "jakarta.servlet.http.HttpServlet";

    /** Per servlet class: the accessor for its servlet API, or null when it has none the agent knows. */
    private final ClassValue<ServletAccessor> byServletClass = new ClassValue<ServletAccessor>() {
        @Override
        protected ServletAccessor computeValue(Class<?> servletClass) {
            for (Class<?> c = servletClass; c != null; c = c.getSuperclass()) {
                if (c.getName().equals(JAVAX_BASE) || c.getName().equals(JAKARTA_BASE)) return byApiClass.get(c);
            }
            return null;
        }
    };

    /** Per HttpServlet class (one per servlet API loader): its edge. */
    private final ClassValue<ServletAccessor> byApiClass = new ClassValue<ServletAccessor>() {
        @Override
        protected ServletAccessor computeValue(Class<?> httpServlet) {
            String edgePackage = httpServlet.getName().startsWith("javax.")
                    ? "dev.idempotency.agent.servlet.javax" : "dev.idempotency.agent.servlet.jakarta";
            try {
                ClassLoader edge = new EdgeLoader(httpServlet.getClassLoader(), edgePackage + ".");
                Class<?> accessor = Class.forName(edgePackage + ".ServletApiAccessor", true, edge);
                AgentLog.debug("servlet edge " + edgePackage + " ready for " + httpServlet.getClassLoader());
                return (ServletAccessor) accessor.getDeclaredConstructor().newInstance();
            } catch (ReflectiveOperationException | LinkageError | RuntimeException e) {
                AgentLog.error("cannot attach to the servlet API of " + httpServlet.getClassLoader()
                        + "; requests of its servlets are NOT protected", e);
                return null;
            }
        }
    };

    ServletAccessor forServlet(Class<?> servletClass) {
        return byServletClass.get(servletClass);
    }
}
