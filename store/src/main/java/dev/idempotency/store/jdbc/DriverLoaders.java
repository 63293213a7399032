package dev.idempotency.store.jdbc;

import dev.idempotency.store.StoreSettings;

import java.io.File;
import java.net.MalformedURLException;
import java.net.URL;
import java.net.URLClassLoader;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentMap;

/**
 * The class loaders of the JDBC drivers an operator names by path (store setting {@code driver-path}) instead of the
 * driver the store's own loader has: inside the agent, a MariaDB Connector/J of the operator's choosing or own build in
 * place of the bundled one. One loader per path, kept for the JVM's life (both pools of a store, and a store opened
 * again, share the driver's classes). Its parent is the JDK's platform loader (the bootstrap loader on Java 8), which
 * has {@code java.sql}: the driver's classes, and whatever else its jars hold, come from those jars alone, and meet
 * neither the bundled driver nor the host application's libraries.
 */
public final class DriverLoaders {
    private static final ConcurrentMap<String, ClassLoader> LOADERS = new ConcurrentHashMap<>();

    private DriverLoaders() {
    }

    /** Whether this loader is one of these (what it loads is the store's own driver). */
    public static boolean made(ClassLoader loader) {
        return loader instanceof OperatorDriverLoader;
    }

    /** The loader of the driver path's jars, made at its first use. */
    static ClassLoader forPath(String driverPath) {
        return LOADERS.computeIfAbsent(driverPath, DriverLoaders::create);
    }

    private static ClassLoader create(String driverPath) {
        String[] files = StoreSettings.driverFiles(driverPath);
        URL[] urls = new URL[files.length];
        for (int i = 0; i < files.length; i++) {
            try {
                urls[i] = new File(files[i]).toURI().toURL();
            } catch (MalformedURLException e) {
                throw new IllegalArgumentException("not a file: " + files[i], e);
            }
        }
        return new OperatorDriverLoader(urls, platformLoader());
    }

    /** The platform loader on Java 9+ (java.sql lives there), the bootstrap loader (null) on Java 8. */
    private static ClassLoader platformLoader() {
        try {
            return (ClassLoader) ClassLoader.class.getMethod("getPlatformClassLoader").invoke(null);
        } catch (ReflectiveOperationException java8) {
            return null;
        }
    }

    /** A class of its own, so that {@link #made} knows these loaders (the agent weaves no hooks into their drivers). */
    static final class OperatorDriverLoader extends URLClassLoader {
        static {
            registerAsParallelCapable();
        }

        OperatorDriverLoader(URL[] urls, ClassLoader parent) {
            super(urls, parent);
        }

        @Override
        public String toString() {
            return "the store's driver loader " + java.util.Arrays.toString(getURLs());
        }
    }
}
