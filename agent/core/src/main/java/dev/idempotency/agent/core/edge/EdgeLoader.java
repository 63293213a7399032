package dev.idempotency.agent.core.edge;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;

/**
 * Defines one namespace edge (servlet or JAX-RS wrappers and accessors) from the agent jar, with the loader of the API
 * it speaks as its parent: the edge sees the host's API classes and, through the bootstrap class path, the bridge;
 * the host sees nothing of the agent. Everything outside the edge package comes from the parent.
 */
public final class EdgeLoader extends ClassLoader {
    private final String edgePackage;

    public EdgeLoader(ClassLoader apiLoader, String edgePackage) {
        super(apiLoader);
        this.edgePackage = edgePackage;
    }

    @Override
    protected Class<?> loadClass(String name, boolean resolve) throws ClassNotFoundException {
        if (!name.startsWith(edgePackage)) return super.loadClass(name, resolve);
        synchronized (getClassLoadingLock(name)) {
            Class<?> c = findLoadedClass(name);
            if (c == null) c = findClass(name);
            if (resolve) resolveClass(c);
            return c;
        }
    }

    /**
     * The edge's class files, for runtimes that read the bytes of the classes an application names (TomEE's annotation
     * scanner asks the class's loader for them); everything else is found by the parent.
     */
    @Override
    protected java.net.URL findResource(String name) {
        return name.startsWith(edgePackage.replace('.', '/')) && name.endsWith(".class")
                ? EdgeLoader.class.getClassLoader().getResource(name) : null;
    }

    @Override
    protected Class<?> findClass(String name) throws ClassNotFoundException {
        String resource = name.replace('.', '/') + ".class";
        try (InputStream in = EdgeLoader.class.getClassLoader().getResourceAsStream(resource)) {
            if (in == null) throw new ClassNotFoundException(name);
            ByteArrayOutputStream out = new ByteArrayOutputStream();
            byte[] buffer = new byte[8192];
            for (int n; (n = in.read(buffer)) > 0; ) out.write(buffer, 0, n);
            byte[] bytes = out.toByteArray();
            return defineClass(name, bytes, 0, bytes.length, EdgeLoader.class.getProtectionDomain());
        } catch (IOException e) {
            throw new ClassNotFoundException(name, e);
        }
    }
}
