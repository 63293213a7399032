package dev.idempotency.agent.core.jaxrs;

import dev.idempotency.agent.core.edge.EdgeLoader;
import dev.idempotency.agent.core.log.AgentLog;

/** The agent's JAX-RS filter class as each JAX-RS API (javax or jakarta, per class loader) needs it. */
public final class JaxrsEdges {
    public static final String JAVAX_APPLICATION = "javax.ws.rs.core.Application";
    public static final String JAKARTA_APPLICATION = "jakarta.ws.rs.core.Application";
    /** Jersey's own application class, whose constructors the agent advises (it registers resources without getClasses). */
    public static final String JERSEY_RESOURCE_CONFIG = "org.glassfish.jersey.server.ResourceConfig";

    /** Per JAX-RS Application base class (one per API loader): the filter class defined against it, or null. */
    private final ClassValue<Class<?>> filterByApi = new ClassValue<Class<?>>() {
        @Override
        protected Class<?> computeValue(Class<?> applicationBase) {
            String edgePackage = applicationBase.getName().startsWith("javax.")
                    ? "dev.idempotency.agent.jaxrs.javax" : "dev.idempotency.agent.jaxrs.jakarta";
            try {
                return Class.forName(edgePackage + ".IdempotencyFilter", true, new EdgeLoader(applicationBase.getClassLoader(), edgePackage + "."));
            } catch (ClassNotFoundException | LinkageError e) {
                AgentLog.error("cannot attach to the JAX-RS API of " + applicationBase.getClassLoader()
                        + "; its resources get no route diagnostics and no standalone protection", e);
                return null;
            }
        }
    };

    /** The filter for an application instance, or null when its JAX-RS API is unknown. */
    Class<?> filterFor(Object application) {
        for (Class<?> c = application.getClass(); c != null; c = c.getSuperclass()) {
            if (c.getName().equals(JAVAX_APPLICATION) || c.getName().equals(JAKARTA_APPLICATION)) return filterByApi.get(c);
        }
        return null;
    }
}
