package dev.idempotency.agent.core.inprocess;

import java.io.ByteArrayInputStream;
import java.io.File;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.net.MalformedURLException;
import java.net.URL;
import java.net.URLClassLoader;

/**
 * The agent's own class loader in the test JVM, as the agent jar's isolated loader is in production: it defines the
 * agent (core, store, Byte Buddy, HikariCP, H2) itself from the test class path, child first. This matters: the
 * start-up weaver never weaves classes of the agent's loader, and in-process the application's classes share the test
 * class path. Only the JDK and the bridge (on the bootstrap class path in production) come from the application's
 * loader, so the woven servlets and the agent meet in one bridge.
 */
final class AgentLoader extends URLClassLoader {
    static {
        registerAsParallelCapable();
    }

    private static final String BRIDGE = "dev.idempotency.agent.bootstrap.";
    private static final String JAKARTA_EDGE = "dev/idempotency/agent/servlet/jakarta/";
    private static final String JAVAX_EDGE = "dev/idempotency/agent/servlet/javax/";

    AgentLoader(ClassLoader application) {
        super(testClassPath(), application);
    }

    @Override
    protected Class<?> loadClass(String name, boolean resolve) throws ClassNotFoundException {
        if (name.startsWith("java.") || name.startsWith(BRIDGE)) return super.loadClass(name, resolve);
        synchronized (getClassLoadingLock(name)) {
            Class<?> c = findLoadedClass(name);
            if (c == null) {
                try {
                    c = findClass(name);
                } catch (ClassNotFoundException notOnTheClassPath) {
                    return super.loadClass(name, resolve); // the JDK's platform modules (java.sql, javax.management)
                }
            }
            if (resolve) resolveClass(c);
            return c;
        }
    }

    /**
     * The edges' class files, which the agent reads through its own loader. A build that stops before {@code package}
     * ({@code -am test}) has no jakarta edge: the module servlet-jakarta only relocates the javax edge when it packages
     * its jar. Then the javax edge is relocated here, as that module's shade relocation does it.
     */
    @Override
    public InputStream getResourceAsStream(String name) {
        InputStream found = super.getResourceAsStream(name);
        if (found != null || !name.startsWith(JAKARTA_EDGE) || !name.endsWith(".class")) return found;
        try (InputStream javax = super.getResourceAsStream(JAVAX_EDGE + name.substring(JAKARTA_EDGE.length()))) {
            return javax == null ? null : new ByteArrayInputStream(JakartaRelocation.relocate(javax.readAllBytes()));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** Surefire puts the whole test class path into java.class.path of the forked JVM. */
    private static URL[] testClassPath() {
        String[] entries = System.getProperty("java.class.path").split(File.pathSeparator);
        URL[] urls = new URL[entries.length];
        try {
            for (int i = 0; i < entries.length; i++) urls[i] = new File(entries[i]).toURI().toURL();
        } catch (MalformedURLException e) {
            throw new IllegalStateException(e);
        }
        return urls;
    }
}
