package dev.idempotency.agent.bootstrap;

import java.io.ByteArrayOutputStream;
import java.io.File;
import java.io.IOException;
import java.io.InputStream;
import java.net.MalformedURLException;
import java.net.URL;
import java.security.CodeSource;
import java.security.ProtectionDomain;
import java.security.cert.Certificate;
import java.util.Collections;
import java.util.Enumeration;
import java.util.jar.JarEntry;
import java.util.jar.JarFile;

/**
 * Loads the agent's implementation (Byte Buddy, the store, HikariCP, Jackson, JDBC drivers, the agent core) from the
 * {@code inst/} folder of the agent jar, where classes are stored as {@code .classdata} so that no other loader can
 * see them. Its parent is the platform loader: the host's own copies of these libraries never meet the agent's.
 */
public final class AgentClassLoader extends ClassLoader {
    static {
        registerAsParallelCapable();
    }

    private static final String PREFIX = "inst/";
    private final JarFile jar;
    private final String jarUrl;
    private final ProtectionDomain domain;

    public AgentClassLoader(File agentJar) throws IOException {
        super(platformLoader());
        this.jar = new JarFile(agentJar, false);
        this.jarUrl = "jar:" + agentJar.toURI() + "!/";
        this.domain = new ProtectionDomain(new CodeSource(agentJar.toURI().toURL(), (Certificate[]) null), null, this, null);
    }

    /** The platform loader on Java 9+ (java.sql lives there), the bootstrap loader (null) on Java 8. */
    private static ClassLoader platformLoader() {
        try {
            return (ClassLoader) ClassLoader.class.getMethod("getPlatformClassLoader").invoke(null);
        } catch (ReflectiveOperationException e) {
            return null;
        }
    }

    @Override
    protected Class<?> findClass(String name) throws ClassNotFoundException {
        JarEntry entry = jar.getJarEntry(PREFIX + name.replace('.', '/') + ".classdata");
        if (entry == null) throw new ClassNotFoundException(name);
        try (InputStream in = jar.getInputStream(entry)) {
            byte[] bytes = readAll(in);
            definePackageOf(name);
            return defineClass(name, bytes, 0, bytes.length, domain);
        } catch (IOException e) {
            throw new ClassNotFoundException(name, e);
        }
    }

    private void definePackageOf(String className) {
        int dot = className.lastIndexOf('.');
        if (dot < 0) return;
        String pkg = className.substring(0, dot);
        try {
            if (getPackage(pkg) == null) definePackage(pkg, null, null, null, null, null, null, null);
        } catch (IllegalArgumentException alreadyDefinedConcurrently) {
            // another thread defined it first
        }
    }

    @Override
    protected URL findResource(String name) {
        String path = name.endsWith(".class") ? name.substring(0, name.length() - ".class".length()) + ".classdata" : name;
        if (jar.getJarEntry(PREFIX + path) == null) return null;
        try {
            return new URL(jarUrl + PREFIX + path);
        } catch (MalformedURLException e) {
            return null;
        }
    }

    @Override
    protected Enumeration<URL> findResources(String name) {
        URL url = findResource(name);
        return url == null ? Collections.<URL>emptyEnumeration() : Collections.enumeration(Collections.singletonList(url));
    }

    private static byte[] readAll(InputStream in) throws IOException {
        ByteArrayOutputStream out = new ByteArrayOutputStream(8192);
        byte[] buffer = new byte[8192];
        for (int n; (n = in.read(buffer)) > 0; ) out.write(buffer, 0, n);
        return out.toByteArray();
    }
}
