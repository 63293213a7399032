package dev.idempotency.agent.core;

import net.bytebuddy.matcher.ElementMatcher;

import java.util.Collections;
import java.util.Map;
import java.util.WeakHashMap;

/**
 * Cheap pre-check per class loader, so types of loaders that cannot see an API (no servlet API, no JAX-RS) are never
 * examined. The cache is locked only to read and write it, never while asking a class loader: containers such as JBoss
 * Modules define classes on many threads at once, and a lock held across a loader call can deadlock with them.
 */
public final class LoaderSees implements ElementMatcher<ClassLoader> {
    private final Map<ClassLoader, Boolean> seen = Collections.synchronizedMap(new WeakHashMap<ClassLoader, Boolean>());
    private final String[] resources;

    /** @param resources class file resources, any one of which the loader must see */
    public LoaderSees(String... resources) {
        this.resources = resources.clone();
    }

    @Override
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
        }
        return known;
    }
}
