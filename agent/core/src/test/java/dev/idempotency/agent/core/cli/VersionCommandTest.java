package dev.idempotency.agent.core.cli;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Collections;
import java.util.Map;
import java.util.Properties;
import java.util.jar.Attributes;
import java.util.jar.JarEntry;
import java.util.jar.JarOutputStream;
import java.util.jar.Manifest;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** {@code version}: what it prints from a jar's manifest and SBOM, for jars made here with known contents. */
class VersionCommandTest {
    private static final String COMMIT = "0123456789abcdef0123456789abcdef01234567";
    /** A CycloneDX document as the build writes it, cut to what the command reads, components out of order. */
    private static final String SBOM = "{\"bomFormat\":\"CycloneDX\",\"specVersion\":\"1.6\","
            + "\"metadata\":{\"component\":{\"group\":\"dev.idempotency\",\"name\":\"idempotency-agent\",\"version\":\"1.2.3\"}},"
            + "\"components\":["
            + "{\"group\":\"org.mariadb.jdbc\",\"name\":\"mariadb-java-client\",\"version\":\"3.4.1\",\"licenses\":[{\"license\":{\"id\":\"LGPL-2.1\"}}]},"
            + "{\"group\":\"com.h2database\",\"name\":\"h2\",\"version\":\"2.2.224\","
            + "\"licenses\":[{\"license\":{\"id\":\"MPL-2.0\"}},{\"license\":{\"name\":\"EPL 1.0\"}}]},"
            + "{\"group\":\"dev.idempotency\",\"name\":\"idempotency-store\",\"version\":\"1.2.3\",\"licenses\":[{\"expression\":\"Apache-2.0\"}]},"
            + "{\"group\":\"org.example\",\"name\":\"no-licence\",\"version\":\"0.1\"}"
            + "]}";

    @TempDir
    Path temp;

    private final ByteArrayOutputStream out = new ByteArrayOutputStream();
    private final ByteArrayOutputStream err = new ByteArrayOutputStream();

    @Test
    void printsTheVersionTheCommitAndEveryComponentWithItsVersionAndLicence() throws IOException {
        Path jar = jar(manifest("1.2.3", COMMIT, "clean"), SBOM);
        assertEquals(0, run(jar, "version"), err());
        assertEquals(String.join("\n",
                "idempotency-agent 1.2.3",
                "commit " + COMMIT,
                "bundled components (META-INF/sbom/bom.json, CycloneDX):",
                "  com.h2database:h2                     2.2.224  MPL-2.0, EPL 1.0",
                "  dev.idempotency:idempotency-store     1.2.3    Apache-2.0",
                "  org.example:no-licence                0.1      licence not declared",
                "  org.mariadb.jdbc:mariadb-java-client  3.4.1    LGPL-2.1",
                ""), out().replace(System.lineSeparator(), "\n"));
    }

    @Test
    void saysWhenTheJarWasBuiltWithUncommittedChangesOrOutsideGit() throws IOException {
        assertEquals(0, run(jar(manifest("1.2.3", COMMIT, "modified"), SBOM), "version"), err());
        assertTrue(out().contains("commit " + COMMIT + " (built with uncommitted changes)" + System.lineSeparator()), out());

        out.reset();
        assertEquals(0, run(jar(manifest("1.2.3", "unknown", "unknown"), SBOM), "version"), err());
        assertTrue(out().contains("commit unknown (not built from a git checkout)" + System.lineSeparator()), out());

        out.reset();
        assertEquals(0, run(jar(new Manifest(), SBOM), "version"), err());
        assertTrue(out().startsWith("idempotency-agent unknown" + System.lineSeparator() + "commit unknown "), out());
    }

    @Test
    void jsonPrintsTheSbomAsTheJarHoldsIt() throws IOException {
        assertEquals(0, run(jar(manifest("1.2.3", COMMIT, "clean"), SBOM), "version", "--json"), err());
        assertArrayEquals(SBOM.getBytes(StandardCharsets.UTF_8), out.toByteArray());
    }

    @Test
    void aJarWithoutAnSbomStillNamesItsVersionAndCommitButFails() throws IOException {
        Path jar = jar(manifest("1.2.3", COMMIT, "clean"), null);
        assertEquals(1, run(jar, "version"));
        assertEquals("idempotency-agent 1.2.3\ncommit " + COMMIT + "\n", out().replace(System.lineSeparator(), "\n"));
        assertTrue(err().contains("this jar holds no SBOM (META-INF/sbom/bom.json)"), err());

        out.reset();
        assertEquals(1, run(jar, "version", "--json"));
        assertEquals("", out(), "no JSON at all rather than something else");
    }

    @Test
    void anSbomItCannotReadFails() throws IOException {
        assertEquals(1, run(jar(manifest("1.2.3", COMMIT, "clean"), "{\"bomFormat\":\"CycloneDX\"}"), "version"));
        assertTrue(err().contains("cannot read the jar's SBOM (META-INF/sbom/bom.json): META-INF/sbom/bom.json lists no components"), err());
        assertEquals(1, run(jar(manifest("1.2.3", COMMIT, "clean"), "not json"), "version"));
    }

    @Test
    void noJarAtAllFails() {
        assertEquals(1, run(temp.resolve("missing.jar"), "version"));
        assertTrue(err().contains("cannot read " + temp.resolve("missing.jar")), err());
    }

    @Test
    void takesNoArgumentsButJson() throws IOException {
        Path jar = jar(manifest("1.2.3", COMMIT, "clean"), SBOM);
        assertEquals(2, run(jar, "version", "extra"));
        assertEquals(2, run(jar, "version", "--yes"));
    }

    @Test
    void theUsageNamesIt() {
        assertEquals(0, run(temp.resolve("missing.jar"), "help"));
        assertTrue(out().contains("  version [--json]"), out());
    }

    private int run(Path jar, String... args) {
        Map<String, String> environment = Collections.emptyMap();
        CliConsole console = new CliConsole(new PrintStream(out, true), new PrintStream(err, true), new ByteArrayInputStream(new byte[0]));
        return new OperatorCli(console, new Properties(), environment, jar.toFile()).run(args);
    }

    private String out() {
        return new String(out.toByteArray(), StandardCharsets.UTF_8);
    }

    private String err() {
        return new String(err.toByteArray(), StandardCharsets.UTF_8);
    }

    private static Manifest manifest(String version, String commit, String tree) {
        Manifest manifest = new Manifest();
        Attributes main = manifest.getMainAttributes();
        main.put(Attributes.Name.MANIFEST_VERSION, "1.0");
        main.put(Attributes.Name.IMPLEMENTATION_VERSION, version);
        main.putValue("Build-Commit", commit);
        main.putValue("Build-Tree", tree);
        return manifest;
    }

    private Path jar(Manifest manifest, String sbom) throws IOException {
        Path jar = Files.createTempFile(temp, "agent-", ".jar");
        manifest.getMainAttributes().putIfAbsent(Attributes.Name.MANIFEST_VERSION, "1.0");
        try (OutputStream file = Files.newOutputStream(jar); JarOutputStream out = new JarOutputStream(file, manifest)) {
            if (sbom != null) {
                out.putNextEntry(new JarEntry("META-INF/sbom/bom.json"));
                out.write(sbom.getBytes(StandardCharsets.UTF_8));
                out.closeEntry();
            }
        }
        return jar;
    }
}
