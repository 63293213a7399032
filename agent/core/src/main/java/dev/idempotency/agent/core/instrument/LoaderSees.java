package dev.idempotency.agent.core.instrument;

import java.util.Collections;
import java.util.Map;
import java.util.WeakHashMap;
import java.util.function.Consumer;

/**
 * Cheap pre-check per class loader, so types of loaders that cannot see an API (no servlet API, no JAX-RS) are never
 * examined, and loaders that cannot see the agent's bridge get nothing that calls it. Free of Byte Buddy (its matchers
 * take {@code loaderSees::matches}). The cache is locked only to read and write it, never while asking a class loader:
 * containers such as JBoss Modules define classes on many threads at once, and a lock held across a loader call can
 * deadlock with them.
 */
public final class LoaderSees {
    private final Map<ClassLoader, Boolean> seen = Collections.synchronizedMap(new WeakHashMap<ClassLoader, Boolean>());
    private final String[] resources;
    private final Consumer<ClassLoader> whenBlind;

    /** @param resources class file resources, any one of which the loader must see */
    public LoaderSees(String... resources) {
        this(loader -> { }, resources);
    }

    /** @param whenBlind told of each loader found to see none of the resources, when it is first asked about */
    public LoaderSees(Consumer<ClassLoader> whenBlind, String... resources) {
        this.whenBlind = whenBlind;
        this.resources = resources.clone();
    }

    public boolean matches(ClassLoader loader) {
        if (loader == null) return false;
        Boolean known = seen.get(loader);
        if (known == null) {
            known = false;
            for (String resource : resources) {
                if (loader.getResource(resource) != null) {
                    known = true;
                    break;
                }
            }
            seen.put(loader, known);
            if (!known) whenBlind.accept(loader);
        }
        return known;
    }
}
