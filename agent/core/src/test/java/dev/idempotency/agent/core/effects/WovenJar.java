package dev.idempotency.agent.core.effects;

import dev.idempotency.agent.core.instrument.effects.EffectHooks;
import dev.idempotency.agent.core.instrument.effects.EffectWeaver;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.net.URL;
import java.net.URLClassLoader;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A library's real jar in a class loader of its own, child-first, its hooked classes woven as the transformer weaves
 * them when a server loads them: one loader per jar for the whole test run.
 */
final class WovenJar extends URLClassLoader {
    private static final Map<URL, WovenJar> LOADED = new ConcurrentHashMap<>();

    private WovenJar(URL jar) {
        super(new URL[] {jar}, WovenJar.class.getClassLoader());
    }

    /** The woven loader of the jar that holds {@code someClass} on the test class path. */
    static ClassLoader of(String someClass) {
        try {
            URL jar = Class.forName(someClass).getProtectionDomain().getCodeSource().getLocation();
            return LOADED.computeIfAbsent(jar, WovenJar::new);
        } catch (ClassNotFoundException e) {
            throw new IllegalStateException(e);
        }
    }

    @Override
    protected Class<?> loadClass(String name, boolean resolve) throws ClassNotFoundException {
        synchronized (getClassLoadingLock(name)) {
            Class<?> loaded = findLoadedClass(name);
            if (loaded != null) return loaded;
            URL own = findResource(name.replace('.', '/') + ".class");
            if (own == null) return super.loadClass(name, resolve);
            try (InputStream in = own.openStream()) {
                ByteArrayOutputStream out = new ByteArrayOutputStream();
                byte[] buffer = new byte[8192];
                for (int n; (n = in.read(buffer)) > 0; ) out.write(buffer, 0, n);
                byte[] bytes = out.toByteArray();
                EffectHooks.Role role = EffectHooks.roleOf(name.replace('.', '/'));
                if (role != null) {
                    byte[] woven = EffectWeaver.weave(bytes, role);
                    assertTrue(woven != null, name + " has hooks to weave");
                    bytes = woven;
                }
                return defineClass(name, bytes, 0, bytes.length);
            } catch (IOException e) {
                throw new ClassNotFoundException(name, e);
            }
        }
    }
}
