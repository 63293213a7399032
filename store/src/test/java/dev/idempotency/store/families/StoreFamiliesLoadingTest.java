package dev.idempotency.store.families;

import dev.idempotency.store.StoreSettings;
import org.junit.jupiter.api.Test;

import java.io.File;
import java.net.MalformedURLException;
import java.net.URL;
import java.net.URLClassLoader;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The front door loads one family only: inside the agent's isolated loader a JDBC store must not pay for the Redis
 * client, nor a Redis store for the JDBC pool and drivers. Each case runs in a loader of its own that records every
 * class it defines.
 */
class StoreFamiliesLoadingTest {

    /** Run inside the recording loader: what the agent's start-up does with a store URL. */
    public static void refuseAndOpen(String url) {
        StoreSettings settings = StoreSettings.builder().url(url).build();
        String refusal = StoreFamilies.refusal(settings);
        if (refusal != null) throw new IllegalStateException(refusal);
        StoreFamilies.open(settings).close();
    }

    private static Set<String> classesLoadedFor(String url) throws Exception {
        try (Recording loader = new Recording()) {
            java.lang.reflect.Method probe = loader.loadClass(StoreFamiliesLoadingTest.class.getName()).getMethod("refuseAndOpen", String.class);
            probe.setAccessible(true); // a package-private class, in the recording loader's own package
            probe.invoke(null, url);
            return loader.defined;
        }
    }

    @Test
    void aRedisStoreLoadsNothingOfTheJdbcFamily() throws Exception {
        Set<String> loaded = classesLoadedFor("redis://127.0.0.1:1");
        assertTrue(loaded.contains("dev.idempotency.store.redis.RedisIdempotencyStore"), "the probe ran");
        for (String name : loaded) {
            assertFalse(name.startsWith("dev.idempotency.store.jdbc.") || name.startsWith("com.zaxxer.")
                    || name.startsWith("org.h2.") || name.startsWith("org.postgresql.") || name.startsWith("org.mariadb."), name);
        }
    }

    @Test
    void aJdbcStoreLoadsNothingOfTheRedisFamily() throws Exception {
        Set<String> loaded = classesLoadedFor("jdbc:h2:mem:loading-" + System.nanoTime());
        assertTrue(loaded.contains("dev.idempotency.store.jdbc.JdbcIdempotencyStore"), "the probe ran");
        for (String name : loaded) {
            assertFalse(name.startsWith("dev.idempotency.store.redis.") || name.startsWith("redis.clients.")
                    || name.startsWith("org.apache.commons.pool2."), name);
        }
    }

    /** The test's class path, parent-last: every class of the store and its libraries is defined (and seen) here. */
    private static final class Recording extends URLClassLoader {
        final Set<String> defined = new TreeSet<>();

        Recording() throws MalformedURLException {
            super(classPath(), ClassLoader.getSystemClassLoader().getParent());
        }

        @Override
        protected Class<?> findClass(String name) throws ClassNotFoundException {
            synchronized (defined) {
                defined.add(name);
            }
            return super.findClass(name);
        }

        private static URL[] classPath() throws MalformedURLException {
            List<URL> urls = new ArrayList<>();
            for (String entry : System.getProperty("java.class.path").split(File.pathSeparator)) urls.add(new File(entry).toURI().toURL());
            return urls.toArray(new URL[0]);
        }
    }
}
