package dev.idempotency.agent.core.gate;

import dev.idempotency.agent.core.log.AgentLog;

import java.util.Collections;
import java.util.Map;
import java.util.WeakHashMap;

/**
 * Which web applications (by their class loader: the context class loader and the JAX-RS application's own, seen when
 * the runtime asks for the application's classes) run JAX-RS only with the agent's filter inside. Only there
 * may the servlet layer leave a keyed request's decision to that filter, which runs after the runtime's
 * authentication and authorisation filters: if a single JAX-RS application of the web application lacks the filter
 * (one whose resources the runtime scans for), its resources could run undecided, so the servlet layer decides there.
 * Weak keys: an undeployed application's loader is never pinned.
 */
public final class JaxrsCoverage {
    private final Map<ClassLoader, Boolean> byLoader = Collections.synchronizedMap(new WeakHashMap<ClassLoader, Boolean>());

    /** A JAX-RS application (of the current web application, defined by {@code application}'s loader) got the agent's filter. */
    public void covered(Object application) {
        for (ClassLoader loader : loaders(application)) byLoader.putIfAbsent(loader, Boolean.TRUE);
    }

    /** A JAX-RS application runs without the agent's filter. */
    public void uncovered(Object application) {
        for (ClassLoader loader : loaders(application)) byLoader.put(loader, Boolean.FALSE);
        AgentLog.debug("JAX-RS application " + application.getClass().getName() + " runs without the agent's filter; keyed"
                + " requests of its web application are decided by the servlet layer");
    }

    private static java.util.List<ClassLoader> loaders(Object application) {
        java.util.List<ClassLoader> loaders = new java.util.ArrayList<>(2);
        ClassLoader context = Thread.currentThread().getContextClassLoader();
        if (context != null) loaders.add(context);
        ClassLoader own = application.getClass().getClassLoader();
        if (own != null && own != context && !application.getClass().getName().startsWith("javax.ws.rs.")
                && !application.getClass().getName().startsWith("jakarta.ws.rs.")) {
            loaders.add(own);
        }
        return loaders;
    }

    /** True when every JAX-RS application of the current web application has the agent's filter. */
    public boolean coversCurrentApplication() {
        ClassLoader loader = Thread.currentThread().getContextClassLoader();
        return loader != null && Boolean.TRUE.equals(byLoader.get(loader));
    }
}
