package dev.idempotency.e2e;

import dev.idempotency.e2e.support.E2eEnvironment;
import org.junit.jupiter.api.Test;

import java.io.DataInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.util.ArrayList;
import java.util.Enumeration;
import java.util.List;
import java.util.jar.Attributes;
import java.util.jar.JarEntry;
import java.util.jar.JarFile;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The shipped jar: its manifest, its two-world layout, and bytecode a Java 8 host can load. */
public class AgentJarIT {

    @Test
    public void theManifestDeclaresTheAgentEntryPoints() throws IOException {
        try (JarFile jar = new JarFile(E2eEnvironment.agentJar().toFile())) {
            Attributes main = jar.getManifest().getMainAttributes();
            assertEquals("dev.idempotency.agent.bootstrap.IdempotencyAgent", main.getValue("Premain-Class"));
            assertEquals("dev.idempotency.agent.bootstrap.IdempotencyAgent", main.getValue("Agent-Class"));
            assertEquals("true", main.getValue("Can-Retransform-Classes"));
            assertEquals("dev.idempotency.agent.bootstrap.OperatorCommandLine", main.getValue("Main-Class"), "the jar is also the operator's tool");
        }
    }

    @Test
    public void onlyTheBridgeIsVisibleAndEverythingElseIsIsolated() throws IOException {
        List<String> visibleClasses = new ArrayList<>();
        boolean hasIsolatedByteBuddy = false;
        boolean hasIsolatedDrivers = false;
        try (JarFile jar = new JarFile(E2eEnvironment.agentJar().toFile())) {
            for (Enumeration<JarEntry> e = jar.entries(); e.hasMoreElements(); ) {
                String name = e.nextElement().getName();
                if (name.endsWith(".class")) visibleClasses.add(name);
                hasIsolatedByteBuddy |= name.equals("inst/net/bytebuddy/ByteBuddy.classdata");
                hasIsolatedDrivers |= name.equals("inst/org/postgresql/Driver.classdata") && jar.getEntry("inst/org/h2/Driver.classdata") != null
                        && jar.getEntry("inst/org/mariadb/jdbc/Driver.classdata") != null;
            }
        }
        for (String c : visibleClasses) assertTrue(c.startsWith("dev/idempotency/agent/bootstrap/"), "visible outside the bridge: " + c);
        assertTrue(visibleClasses.size() < 20, "the bridge stays small: " + visibleClasses);
        assertTrue(hasIsolatedByteBuddy, "Byte Buddy is bundled under inst/");
        assertTrue(hasIsolatedDrivers, "the JDBC drivers are bundled under inst/");
    }

    @Test
    public void everyClassLoadsOnJava8() throws IOException {
        int classes = 0;
        try (JarFile jar = new JarFile(E2eEnvironment.agentJar().toFile())) {
            for (Enumeration<JarEntry> e = jar.entries(); e.hasMoreElements(); ) {
                JarEntry entry = e.nextElement();
                if (entry.getName().startsWith("META-INF/versions/")) continue;
                if (!entry.getName().endsWith(".class") && !entry.getName().endsWith(".classdata")) continue;
                try (InputStream in = jar.getInputStream(entry)) {
                    DataInputStream data = new DataInputStream(in);
                    assertEquals(0xCAFEBABE, data.readInt(), entry.getName());
                    data.readUnsignedShort();
                    int major = data.readUnsignedShort();
                    assertTrue(major <= 52, entry.getName() + " has class file version " + major);
                    classes++;
                }
            }
        }
        assertTrue(classes > 1000, "counted " + classes + " classes");
    }
}
