package dev.idempotency.agent.core.instrument;

import net.bytebuddy.jar.asm.ClassReader;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.util.ArrayDeque;
import java.util.Collections;
import java.util.Deque;
import java.util.HashSet;
import java.util.Set;

/**
 * Which of a few types a class that is being loaded extends or implements, read from its super types' class files
 * through the loader that defines it (they are usually not loaded yet), without Byte Buddy. A super type without a
 * class file (another agent defines interfaces at run time and adds them to servlets, OpenTelemetry's field accessors)
 * is taken from the loaded class; one that cannot be found at all is skipped, so it cannot cost the servlet its
 * protection. The JDK's own types end most hierarchies and are never one of ours: they are not read.
 */
public final class SuperTypeWalk {
    private SuperTypeWalk() {
    }

    /** The names among {@code wanted} (internal names) that the class is, extends or implements, directly or not. */
    public static Set<String> reachable(ClassLoader loader, ClassReader type, Set<String> wanted) {
        Set<String> found = null;
        Deque<String> pending = new ArrayDeque<>();
        addSupers(pending, type.getSuperName(), type.getInterfaces());
        Set<String> visited = new HashSet<>();
        if (wanted.contains(type.getClassName())) found = new HashSet<>(Collections.singleton(type.getClassName()));
        while (!pending.isEmpty()) {
            String name = pending.pop();
            if (!visited.add(name)) continue;
            if (wanted.contains(name)) {
                if (found == null) found = new HashSet<>();
                found.add(name);
                continue;
            }
            if (isJdk(name)) continue;
            superTypesOf(loader, name, pending);
        }
        return found == null ? Collections.<String>emptySet() : found;
    }

    private static void superTypesOf(ClassLoader loader, String name, Deque<String> pending) {
        byte[] classFile = classFile(loader, name);
        if (classFile != null) {
            try {
                ClassReader reader = new ClassReader(classFile);
                addSupers(pending, reader.getSuperName(), reader.getInterfaces());
                return;
            } catch (RuntimeException unreadable) {
                // a class file this reader does not know: the loaded class may still tell
            }
        }
        Class<?> loaded = loaded(loader, name);
        if (loaded == null) return;
        Class<?> superClass = loaded.getSuperclass();
        if (superClass != null) pending.push(superClass.getName().replace('.', '/'));
        for (Class<?> implemented : loaded.getInterfaces()) pending.push(implemented.getName().replace('.', '/'));
    }

    private static void addSupers(Deque<String> pending, String superName, String[] interfaces) {
        if (superName != null) pending.push(superName);
        for (String implemented : interfaces) pending.push(implemented);
    }

    private static byte[] classFile(ClassLoader loader, String name) {
        try (InputStream in = loader.getResourceAsStream(name + ".class")) {
            if (in == null) return null;
            ByteArrayOutputStream out = new ByteArrayOutputStream(4096);
            byte[] buffer = new byte[4096];
            for (int n; (n = in.read(buffer)) > 0; ) out.write(buffer, 0, n);
            return out.toByteArray();
        } catch (IOException | RuntimeException unreadable) {
            return null;
        }
    }

    private static Class<?> loaded(ClassLoader loader, String name) {
        try {
            return Class.forName(name.replace('/', '.'), false, loader);
        } catch (ClassNotFoundException | LinkageError notLoadable) {
            return null;
        }
    }

    private static boolean isJdk(String name) {
        return name.startsWith("java/") || name.startsWith("jdk/") || name.startsWith("sun/");
    }
}
