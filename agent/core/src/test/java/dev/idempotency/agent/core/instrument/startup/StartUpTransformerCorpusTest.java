package dev.idempotency.agent.core.instrument.startup;

import dev.idempotency.agent.core.instrument.attach.Instrumentations;
import org.junit.jupiter.api.Test;

import java.io.ByteArrayOutputStream;
import java.io.File;
import java.io.IOException;
import java.io.InputStream;
import java.lang.instrument.ClassFileTransformer;
import java.net.URL;
import java.net.URLClassLoader;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Enumeration;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.jar.JarEntry;
import java.util.jar.JarFile;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The start-up transformer against Byte Buddy's matchers (which an attach uses, and which the agent used at start-up
 * before), over every class of real servlet containers and frameworks (Tomcat, Spring MVC, Jersey, the servlet and
 * JAX-RS APIs): the pre-check must never pass over a class that gets advice and must pass over nearly everything
 * else; the weaver must weave exactly the classes Byte Buddy gives advice; and every woven class must pass the JVM's
 * verifier.
 */
class StartUpTransformerCorpusTest {
    private static final List<String> CORPUS = Arrays.asList("tomcat-embed-core-", "spring-webmvc-", "spring-web-",
            "jersey-server-", "jersey-container-servlet-core-", "javax.servlet-api-", "javax.ws.rs-api-");
    private static final String BRIDGE = "dev/idempotency/agent/bootstrap/bridge/";

    @Test
    void weavesExactlyWhatByteBuddyAdvisesAndEveryWovenClassVerifies() throws Exception {
        List<File> jars = corpusJars();
        ClassFileTransformer byteBuddy = Instrumentations.builder(null).makeRaw();
        TreeSet<String> advised = new TreeSet<>();
        TreeSet<String> woven = new TreeSet<>();
        List<String> missed = new ArrayList<>();
        int classes = 0;
        int passedOn = 0;
        // super types come from anywhere on the class path (Spring's servlets extend types of spring-core)
        List<URL> classPath = new ArrayList<>();
        for (String entry : System.getProperty("java.class.path").split(File.pathSeparator)) classPath.add(new File(entry).toURI().toURL());
        try (URLClassLoader loader = new URLClassLoader(classPath.toArray(new URL[0]), null)) {
            for (File jar : jars) {
                try (JarFile file = new JarFile(jar)) {
                    for (Enumeration<JarEntry> entries = file.entries(); entries.hasMoreElements(); ) {
                        JarEntry entry = entries.nextElement();
                        String path = entry.getName();
                        if (!path.endsWith(".class") || path.startsWith("META-INF/") || path.endsWith("module-info.class")) continue;
                        String name = path.substring(0, path.length() - ".class".length());
                        byte[] classFile = read(file, entry);
                        classes++;
                        boolean mayNeed = StartUpTransformer.mayNeed(name, classFile);
                        if (mayNeed) passedOn++;
                        byte[] transformed = byteBuddy.transform(loader, name, null, null, classFile);
                        if (transformed != null && mentions(transformed, BRIDGE) && !mentions(classFile, BRIDGE)) {
                            advised.add(name);
                            if (!mayNeed) missed.add(name);
                        }
                        if (mayNeed && StartUpTransformer.weave(loader, name, classFile) != null) woven.add(name);
                    }
                }
            }
            System.out.println("pre-check: " + classes + " classes, " + passedOn + " read further, " + advised.size()
                    + " given advice by Byte Buddy, " + woven.size() + " woven");
            assertEquals(new ArrayList<String>(), missed, "classes given advice that the pre-check passed over");
            assertEquals(advised, woven, "the start-up weaver and Byte Buddy disagree");
            for (String known : new String[] {"javax/servlet/http/HttpServlet", "jakarta/servlet/http/HttpServlet",
                "org/apache/catalina/servlets/DefaultServlet", "org/apache/catalina/filters/CorsFilter",
                "org/springframework/web/servlet/FrameworkServlet", "org/springframework/web/filter/OncePerRequestFilter",
                "org/glassfish/jersey/servlet/ServletContainer", "org/glassfish/jersey/server/ResourceConfig",
                "javax/ws/rs/core/Application"}) {
                assertTrue(woven.contains(known), known + " should be woven; woven: " + woven);
            }
            assertTrue(passedOn * 20 < classes, "the pre-check sent " + passedOn + " of " + classes + " classes on");
            assertEquals(new ArrayList<String>(), unverifiable(loader, woven), "woven classes the JVM rejects");
        }
    }

    /** Defines every woven class (and what it needs, unwoven) in a loader of its own and links it: the verifier runs. */
    private static List<String> unverifiable(URLClassLoader classPath, Set<String> woven) {
        ClassLoader weaving = new ClassLoader(null) {
            @Override
            protected Class<?> findClass(String name) throws ClassNotFoundException {
                String internal = name.replace('.', '/');
                try (InputStream in = classPath.getResourceAsStream(internal + ".class")) {
                    if (in == null) throw new ClassNotFoundException(name);
                    byte[] classFile = readAll(in);
                    byte[] defined = woven.contains(internal) ? StartUpTransformer.weave(classPath, internal, classFile) : classFile;
                    return defineClass(name, defined, 0, defined.length);
                } catch (IOException e) {
                    throw new ClassNotFoundException(name, e);
                }
            }
        };
        List<String> rejected = new ArrayList<>();
        int linked = 0;
        for (String name : woven) {
            try {
                Class<?> type = Class.forName(name.replace('/', '.'), false, weaving);
                type.getDeclaredMethods(); // links the class: the verifier runs over every method
                linked++;
            } catch (VerifyError | ClassFormatError | IncompatibleClassChangeError e) {
                rejected.add(name + ": " + e);
            } catch (LinkageError optionalDependencyMissing) {
                // a class of the corpus that needs a library the test class path lacks: not the weaver's doing
            } catch (ClassNotFoundException e) {
                rejected.add(name + ": " + e);
            }
        }
        System.out.println("verified " + linked + " of " + woven.size() + " woven classes");
        assertTrue(linked * 10 >= woven.size() * 9, "only " + linked + " of " + woven.size() + " woven classes could be linked");
        return rejected;
    }

    private static List<File> corpusJars() {
        List<File> jars = new ArrayList<>();
        for (String prefix : CORPUS) {
            File found = null;
            for (String entry : System.getProperty("java.class.path").split(File.pathSeparator)) {
                File file = new File(entry);
                if (file.getName().startsWith(prefix) && file.getName().endsWith(".jar")) found = file;
            }
            assertTrue(found != null, prefix + "*.jar is not on the test class path");
            jars.add(found);
        }
        return jars;
    }

    private static byte[] read(JarFile file, JarEntry entry) throws IOException {
        try (InputStream in = file.getInputStream(entry)) {
            return readAll(in);
        }
    }

    private static byte[] readAll(InputStream in) throws IOException {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        byte[] buffer = new byte[8192];
        for (int n; (n = in.read(buffer)) > 0; ) out.write(buffer, 0, n);
        return out.toByteArray();
    }

    private static boolean mentions(byte[] classFile, String text) {
        return new String(classFile, StandardCharsets.ISO_8859_1).contains(text);
    }
}
