package dev.idempotency.agent.core.instrument.startup;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.io.InputStream;
import java.lang.reflect.Method;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;

/**
 * The boot delegation tests of Felix (Payara) and Equinox (Open Liberty), woven through the start-up transformer, pass
 * the bridge's package and keep their own answer for every other one. The frameworks' classes are stand-ins of the same
 * name and method; the real ones are run by the Payara and Open Liberty end-to-end tests.
 */
class OsgiBootDelegationTest {

    @ParameterizedTest
    @CsvSource({"org.apache.felix.framework.BundleWiringImpl, shouldBootDelegate, java.util", "org.apache.felix.framework.BundleWiringImpl, shouldBootDelegate, sun.misc",
            "org.eclipse.osgi.internal.framework.EquinoxContainer, isBootDelegationPackage, sun.misc", "org.eclipse.osgi.internal.framework.EquinoxContainer, isBootDelegationPackage, com.sun.net"})
    void theWovenTestPassesTheBridgesPackageAndKeepsItsOwnAnswers(String framework, String test, String ownDelegation) throws Exception {
        byte[] original = classFile(framework);
        byte[] woven = new StartUpTransformer().transform(frameworkLoader(), framework.replace('.', '/'), null, null, original);
        assertNotNull(woven, "woven");
        Class<?> type = new SingleClassLoader(framework, woven).loadClass(framework);
        Object instance = type.getConstructor().newInstance();
        Method method = type.getDeclaredMethod(test, String.class);
        method.setAccessible(true);
        assertEquals(true, method.invoke(instance, OsgiBootDelegation.BRIDGE_PACKAGE));
        assertEquals(true, method.invoke(instance, ownDelegation), "the framework's own boot delegation stays");
        assertEquals(false, method.invoke(instance, "com.example.shop"));
        assertEquals(false, method.invoke(instance, OsgiBootDelegation.BRIDGE_PACKAGE + ".other"), "only the bridge's package");
        assertEquals(false, method.invoke(instance, "dev.idempotency.agent.core"), "the agent's own code stays hidden");
    }

    @Test
    void aFrameworkClassWithoutTheTestIsLeftAsItIs() throws Exception {
        byte[] other = classFile(getClass().getName());
        assertNull(OsgiBootDelegation.weave("org/apache/felix/framework/BundleWiringImpl", other));
    }

    @Test
    void aRedefinitionIsWovenToo() throws Exception {
        String framework = "org.apache.felix.framework.BundleWiringImpl";
        byte[] woven = new StartUpTransformer().transform(frameworkLoader(), framework.replace('.', '/'),
                org.apache.felix.framework.BundleWiringImpl.class, null, classFile(framework));
        assertNotNull(woven, "another agent's redefinition keeps the bridge visible");
        Class<?> type = new SingleClassLoader(framework, woven).loadClass(framework);
        Method method = type.getDeclaredMethod("shouldBootDelegate", String.class);
        method.setAccessible(true);
        assertEquals(true, method.invoke(type.getConstructor().newInstance(), OsgiBootDelegation.BRIDGE_PACKAGE));
    }

    /** The loader a framework's classes come from: any but the agent's own, which the transformer skips. */
    private static ClassLoader frameworkLoader() {
        return new ClassLoader(OsgiBootDelegationTest.class.getClassLoader()) { };
    }

    private static byte[] classFile(String className) throws IOException {
        try (InputStream in = OsgiBootDelegationTest.class.getClassLoader().getResourceAsStream(className.replace('.', '/') + ".class")) {
            assertNotNull(in, className);
            return in.readAllBytes();
        }
    }

    /** Defines one class from the given bytes; everything else comes from the parent. */
    private static final class SingleClassLoader extends ClassLoader {
        private final String name;
        private final byte[] bytes;

        SingleClassLoader(String name, byte[] bytes) {
            super(OsgiBootDelegationTest.class.getClassLoader());
            this.name = name;
            this.bytes = bytes;
        }

        @Override
        protected Class<?> loadClass(String className, boolean resolve) throws ClassNotFoundException {
            if (!className.equals(name)) return super.loadClass(className, resolve);
            synchronized (getClassLoadingLock(className)) {
                Class<?> loaded = findLoadedClass(className);
                return loaded != null ? loaded : defineClass(className, bytes, 0, bytes.length);
            }
        }
    }
}
