package dev.idempotency.e2e.servers;

import dev.idempotency.e2e.support.E2eEnvironment;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;
import java.util.Map;

/**
 * A stock Open Liberty (Equinox OSGi kernel) started by its own {@code bin/server run}: a server of its own under a
 * private WLP_USER_DIR, with the features named, the WAR as a web application at /shop, and the agent in the server's
 * jvm.options, one option per line, as an operator adds it. Nothing is configured for OSGi boot delegation: the agent
 * arranges its own visibility.
 */
public final class OpenLibertyServer extends ServerProcess {
    private static final String NAME = "e2e";
    private final Path home;
    private final Path war;
    private final String features;

    public OpenLibertyServer(Path home, Path war, String... features) throws IOException {
        super("openliberty");
        this.home = home;
        this.war = war;
        StringBuilder xml = new StringBuilder();
        for (String feature : features) xml.append("<feature>").append(feature).append("</feature>");
        this.features = xml.toString();
    }

    /** Java EE 8's servlet feature (javax) with the payments WAR. */
    public static OpenLibertyServer javax() throws IOException {
        return new OpenLibertyServer(E2eEnvironment.openLiberty(), E2eEnvironment.war("payments-javax.war"), "servlet-4.0");
    }

    /** Jakarta EE 10's servlet feature (jakarta) with the payments WAR. */
    public static OpenLibertyServer jakarta() throws IOException {
        return new OpenLibertyServer(E2eEnvironment.openLiberty(), E2eEnvironment.war("payments-jakarta.war"), "servlet-6.0");
    }

    private Path serverDir() {
        return work.resolve("usr/servers/" + NAME);
    }

    @Override
    protected void prepare() throws IOException {
        Files.createDirectories(serverDir());
        Path app = work.resolve("shop.war");
        Files.copy(war, app);
        String xml = "<server>\n  <featureManager>" + features + "</featureManager>\n"
                + "  <httpEndpoint id=\"defaultHttpEndpoint\" host=\"127.0.0.1\" httpPort=\"" + port + "\" httpsPort=\"-1\"/>\n"
                + "  <webApplication location=\"" + app + "\" contextRoot=\"/shop\"/>\n</server>\n";
        Files.write(serverDir().resolve("server.xml"), xml.getBytes(StandardCharsets.UTF_8));
    }

    /** Liberty reads jvm.options at every start, one option per line (spaces and all). */
    @Override
    protected void environment(Map<String, String> environment, Path javaHome, List<String> jvmOptions) {
        environment.put("JAVA_HOME", javaHome.toString());
        environment.put("WLP_USER_DIR", work.resolve("usr").toString());
        try {
            Files.write(serverDir().resolve("jvm.options"), jvmOptions, StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
    }

    @Override
    protected List<String> command(Path java, List<String> jvmOptions) {
        return Arrays.asList("/bin/sh", home.resolve("bin/server").toString(), "run", NAME);
    }
}
