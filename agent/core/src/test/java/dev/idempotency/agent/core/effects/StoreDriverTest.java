package dev.idempotency.agent.core.effects;

import dev.idempotency.agent.core.instrument.effects.EffectTransformer;
import dev.idempotency.store.families.StoreFamilies;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.io.InputStream;
import java.lang.reflect.Constructor;
import java.net.URL;
import java.net.URLClassLoader;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The store's own JDBC driver, loaded from the jars of its driver path (store setting driver-path) by a loader the store
 * makes: its statements are the agent's, so its classes are never woven with the effect hooks an application's driver
 * gets, though they are the same classes.
 */
class StoreDriverTest {
    private static final String CONNECTION = "org/h2/jdbc/JdbcConnection";

    @Test
    void theStoresDriverFromItsDriverPathIsNeverWatchedAndTheSameDriverOfAnApplicationIs() throws Exception {
        EffectTransformer transformer = new EffectTransformer(true);
        URL h2 = org.h2.Driver.class.getProtectionDomain().getCodeSource().getLocation();
        byte[] connection = classFile();

        // The store's loader, with a parent that sees the agent's bridge, as the platform loader does in a server (where
        // the bridge is on the bootstrap class path): seeing the bridge is not what spares it.
        Constructor<?> made = Class.forName("dev.idempotency.store.jdbc.DriverLoaders$OperatorDriverLoader")
                .getDeclaredConstructor(URL[].class, ClassLoader.class);
        made.setAccessible(true);
        try (URLClassLoader store = (URLClassLoader) made.newInstance(new URL[] {h2}, getClass().getClassLoader());
             URLClassLoader application = new URLClassLoader(new URL[] {h2}, getClass().getClassLoader())) {
            assertTrue(StoreFamilies.isDriverLoader(store));
            assertFalse(StoreFamilies.isDriverLoader(application));
            assertFalse(StoreFamilies.isDriverLoader(null));
            assertTrue(transformer.transform(store, CONNECTION, null, null, connection) == null, "the store's own driver is left alone");
            assertTrue(transformer.transform(application, CONNECTION, null, null, connection) != null, "an application's driver is woven");
        }
    }

    private static byte[] classFile() throws IOException {
        try (InputStream in = org.h2.Driver.class.getClassLoader().getResourceAsStream(CONNECTION + ".class")) {
            return in.readAllBytes();
        }
    }
}
