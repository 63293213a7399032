package dev.idempotency.agent.core.gate;

import java.util.Collections;
import java.util.Map;
import java.util.WeakHashMap;

/**
 * Which web applications (by their context class loader) run JAX-RS only with the agent's filter inside. Only there
 * may the servlet layer leave a keyed request's decision to that filter, which runs after the runtime's
 * authentication and authorisation filters: if a single JAX-RS application of the web application lacks the filter
 * (one whose resources the runtime scans for), its resources could run undecided, so the servlet layer decides there.
 * Weak keys: an undeployed application's loader is never pinned.
 */
public final class JaxrsCoverage {
    private final Map<ClassLoader, Boolean> byLoader = Collections.synchronizedMap(new WeakHashMap<ClassLoader, Boolean>());

    /** A JAX-RS application of the current web application got the agent's filter. */
    public void covered() {
        ClassLoader loader = Thread.currentThread().getContextClassLoader();
        if (loader != null) byLoader.putIfAbsent(loader, Boolean.TRUE);
    }

    /** A JAX-RS application of the current web application runs without the agent's filter. */
    public void uncovered() {
        ClassLoader loader = Thread.currentThread().getContextClassLoader();
        if (loader != null) byLoader.put(loader, Boolean.FALSE);
    }

    /** True when every JAX-RS application of the current web application has the agent's filter. */
    public boolean coversCurrentApplication() {
        ClassLoader loader = Thread.currentThread().getContextClassLoader();
        return loader != null && Boolean.TRUE.equals(byLoader.get(loader));
    }
}
