package dev.idempotency.agent.core.cli;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;

import java.io.ByteArrayOutputStream;
import java.io.File;
import java.io.IOException;
import java.io.InputStream;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.jar.Attributes;
import java.util.jar.JarEntry;
import java.util.jar.JarFile;
import java.util.jar.Manifest;

/**
 * What the agent jar says of itself: its manifest (the version, the commit it was built from, whether tracked files
 * differed from that commit) and the CycloneDX SBOM the build put inside it. Values the jar lacks read as
 * {@value #UNKNOWN}.
 */
final class AgentBuild {
    static final String UNKNOWN = "unknown";
    static final String SBOM_ENTRY = "META-INF/sbom/bom.json";

    final String version;
    final String commit;
    /** {@code clean}, {@code modified} or {@value #UNKNOWN}: the build's git tree against its commit. */
    final String tree;
    /** The SBOM as the jar holds it, or null when it holds none. */
    final byte[] sbom;

    private AgentBuild(String version, String commit, String tree, byte[] sbom) {
        this.version = version;
        this.commit = commit;
        this.tree = tree;
        this.sbom = sbom;
    }

    static AgentBuild of(File agentJar) throws IOException {
        try (JarFile jar = new JarFile(agentJar, false)) {
            Manifest manifest = jar.getManifest();
            Attributes main = manifest == null ? new Attributes() : manifest.getMainAttributes();
            JarEntry entry = jar.getJarEntry(SBOM_ENTRY);
            byte[] sbom = null;
            if (entry != null) {
                try (InputStream in = jar.getInputStream(entry)) {
                    sbom = readAll(in);
                }
            }
            String version = value(main, "Implementation-Version");
            return new AgentBuild(version, value(main, "Build-Commit"), value(main, "Build-Tree"), sbom);
        }
    }

    /** The SBOM's components (not the agent itself, its subject), by group and name; the SBOM must be there. */
    List<Component> components() throws IOException {
        JsonNode components = new ObjectMapper().readTree(sbom).path("components");
        if (!components.isArray()) throw new IOException(SBOM_ENTRY + " lists no components");
        List<Component> list = new ArrayList<>();
        for (JsonNode c : components) {
            List<String> licences = new ArrayList<>();
            for (JsonNode l : c.path("licenses")) {
                JsonNode licence = l.path("license");
                String named = l.has("expression") ? l.path("expression").asText()
                        : licence.has("id") ? licence.path("id").asText() : licence.path("name").asText();
                if (!named.isEmpty()) licences.add(named);
            }
            String version = c.path("version").asText(UNKNOWN);
            list.add(new Component(c.path("group").asText(""), c.path("name").asText(), version, licences));
        }
        Collections.sort(list, (a, b) -> a.coordinates().compareTo(b.coordinates()));
        return list;
    }

    private static String value(Attributes attributes, String name) {
        String value = attributes.getValue(name);
        return value == null || value.trim().isEmpty() ? UNKNOWN : value.trim();
    }

    private static byte[] readAll(InputStream in) throws IOException {
        ByteArrayOutputStream out = new ByteArrayOutputStream(64 * 1024);
        byte[] buffer = new byte[8192];
        for (int n; (n = in.read(buffer)) > 0; ) out.write(buffer, 0, n);
        return out.toByteArray();
    }

    /** One bundled artifact, as the SBOM names it. */
    static final class Component {
        final String group;
        final String name;
        final String version;
        final List<String> licences;

        Component(String group, String name, String version, List<String> licences) {
            this.group = group;
            this.name = name;
            this.version = version;
            this.licences = Collections.unmodifiableList(licences);
        }

        String coordinates() {
            return group.isEmpty() ? name : group + ":" + name;
        }
    }
}
