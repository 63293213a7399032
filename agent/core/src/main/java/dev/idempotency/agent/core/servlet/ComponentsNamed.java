package dev.idempotency.agent.core.servlet;

import java.util.Arrays;
import java.util.HashSet;
import java.util.Set;

/** Whether a filter or servlet class is one of the named classes or extends one of them; cached per class. */
final class ComponentsNamed extends ClassValue<Boolean> {
    private final Set<String> names;

    ComponentsNamed(String... names) {
        this.names = new HashSet<>(Arrays.asList(names));
    }

    @Override
    protected Boolean computeValue(Class<?> type) {
        for (Class<?> c = type; c != null; c = c.getSuperclass()) if (names.contains(c.getName())) return Boolean.TRUE;
        return Boolean.FALSE;
    }
}
