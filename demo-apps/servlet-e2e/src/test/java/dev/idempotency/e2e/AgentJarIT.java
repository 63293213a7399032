package dev.idempotency.e2e;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.idempotency.e2e.support.AgentTool;
import dev.idempotency.e2e.support.E2eEnvironment;
import org.junit.jupiter.api.Test;

import java.io.DataInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Enumeration;
import java.util.List;
import java.util.jar.Attributes;
import java.util.jar.JarEntry;
import java.util.jar.JarFile;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The shipped jar: its manifest, its two-world layout, bytecode a Java 8 host can load, and what it says of itself (its
 * licence, notice and SBOM, and the {@code version} command that prints them).
 */
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

    @Test
    public void itCarriesItsLicenceItsNoticeAndAnSbomThatTheNoticeAgreesWith() throws IOException {
        try (JarFile jar = new JarFile(E2eEnvironment.agentJar().toFile())) {
            assertTrue(text(jar, "META-INF/LICENSE").contains("Apache License\n                           Version 2.0, January 2004"));
            String notice = text(jar, "META-INF/NOTICE");
            assertEquals("META-INF/sbom/bom.json", jar.getManifest().getMainAttributes().getValue("Sbom-Location"));
            JsonNode components = new ObjectMapper().readTree(text(jar, "META-INF/sbom/bom.json")).path("components");
            List<String> inSbom = new ArrayList<>();
            for (JsonNode c : components) {
                String coordinates = c.path("group").asText() + ":" + c.path("name").asText();
                String version = c.path("version").asText();
                assertFalse(version.isEmpty(), coordinates);
                assertTrue(c.path("hashes").toString().contains("\"SHA-256\""), coordinates + " has no SHA-256 hash");
                assertTrue(c.path("licenses").size() > 0, coordinates + " has no licence");
                inSbom.add(coordinates);
                if (coordinates.startsWith("dev.idempotency:")) continue;
                // NOTICE names each bundled library with its version on one line.
                assertTrue(Arrays.stream(notice.split("\n")).anyMatch(line -> line.startsWith(coordinates + " ") && line.contains(" " + version + " ")),
                        "NOTICE does not name " + coordinates + " " + version);
            }
            // ...and names none that the jar does not bundle: every row of its table is in the SBOM.
            for (String line : notice.split("\n")) {
                if (!line.matches("[a-z0-9.-]+:[A-Za-z0-9._-]+ +[0-9][^ ]* +.*")) continue;
                String coordinates = line.substring(0, line.indexOf(' '));
                assertTrue(inSbom.contains(coordinates), "NOTICE names " + coordinates + ", which the SBOM does not list");
            }
            for (String left : new String[] {"inst/com/sun/jna/", "inst/waffle/", "inst/com/github/benmanes/caffeine/",
                    "inst/org/apache/commons/logging/", "inst/com/google/errorprone/"}) {
                assertTrue(jar.stream().noneMatch(e -> e.getName().startsWith(left)), "left out of the jar: " + left);
            }
        }
    }

    @Test
    public void versionPrintsTheAgentItsCommitAndEveryBundledComponent() throws Exception {
        AgentTool.Result version = AgentTool.run("version");
        assertEquals(0, version.exit, version.toString());
        String[] lines = version.out.split("\\R");
        try (JarFile jar = new JarFile(E2eEnvironment.agentJar().toFile())) {
            assertEquals("idempotency-agent " + jar.getManifest().getMainAttributes().getValue("Implementation-Version"), lines[0]);
            assertTrue(lines[1].matches("commit ([0-9a-f]{40}( \\(built with uncommitted changes\\))?|unknown \\(not built from a git checkout\\))"),
                    lines[1]);
            assertEquals("bundled components (META-INF/sbom/bom.json, CycloneDX):", lines[2]);
            JsonNode components = new ObjectMapper().readTree(text(jar, "META-INF/sbom/bom.json")).path("components");
            assertEquals(components.size(), lines.length - 3, version.out);
            for (JsonNode c : components) {
                String coordinates = c.path("group").asText() + ":" + c.path("name").asText();
                assertTrue(Arrays.stream(lines).anyMatch(line -> line.matches("  " + java.util.regex.Pattern.quote(coordinates) + " +"
                        + java.util.regex.Pattern.quote(c.path("version").asText()) + " +\\S.*")), "version does not list " + coordinates);
            }
        }

        AgentTool.Result json = AgentTool.run("version", "--json");
        assertEquals(0, json.exit, json.toString());
        try (JarFile jar = new JarFile(E2eEnvironment.agentJar().toFile())) {
            assertEquals(text(jar, "META-INF/sbom/bom.json"), json.out, "--json prints the SBOM as the jar holds it");
        }
    }

    private static String text(JarFile jar, String entry) throws IOException {
        JarEntry found = jar.getJarEntry(entry);
        assertTrue(found != null, "the jar has no " + entry);
        try (InputStream in = jar.getInputStream(found)) {
            return new String(in.readAllBytes(), StandardCharsets.UTF_8);
        }
    }
}
