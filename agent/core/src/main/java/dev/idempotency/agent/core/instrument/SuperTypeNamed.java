package dev.idempotency.agent.core.instrument;

import net.bytebuddy.description.type.TypeDefinition;
import net.bytebuddy.description.type.TypeDescription;
import net.bytebuddy.matcher.ElementMatcher;

import java.util.Arrays;
import java.util.HashSet;
import java.util.Set;

/**
 * Whether a type is, extends or implements a type of one of these names, looking through every super type that can
 * be resolved and skipping those that cannot. Other agents add interfaces of their own to classes as they load (the
 * OpenTelemetry agent's generated field accessors, defined at run time, have no class file to read): a plain
 * {@code hasSuperType} then fails on the whole class, and the servlet would go unprotected.
 */
public final class SuperTypeNamed extends ElementMatcher.Junction.AbstractBase<TypeDescription> {
    private final Set<String> names;

    private SuperTypeNamed(String... names) {
        this.names = new HashSet<>(Arrays.asList(names));
    }

    public static SuperTypeNamed anyOf(String... names) {
        return new SuperTypeNamed(names);
    }

    @Override
    public boolean matches(TypeDescription type) {
        return matches(type, new HashSet<String>());
    }

    private boolean matches(TypeDefinition type, Set<String> visited) {
        String name;
        try {
            name = type.asErasure().getName();
        } catch (RuntimeException unresolvable) {
            return false;
        }
        if (!visited.add(name)) return false;
        if (names.contains(name)) return true;
        // The JDK's own types (Object, Serializable, Runnable…) end most hierarchies and are never one of ours: they
        // are not read at all, which is most of what matching every class the server loads used to cost at start-up.
        if (isJdk(name)) return false;
        try {
            TypeDescription.Generic superClass = type.getSuperClass();
            if (superClass != null && matches(superClass, visited)) return true;
        } catch (RuntimeException unresolvable) {
            // a super class that cannot be read is not one of ours: look at the interfaces
        }
        try {
            for (TypeDescription.Generic implemented : type.getInterfaces()) if (matches(implemented, visited)) return true;
        } catch (RuntimeException unresolvable) {
            // as above
        }
        return false;
    }

    private static boolean isJdk(String name) {
        return name.startsWith("java.") || name.startsWith("jdk.") || name.startsWith("sun.");
    }

    @Override
    public String toString() {
        return "superTypeNamed(" + names + ")";
    }
}
