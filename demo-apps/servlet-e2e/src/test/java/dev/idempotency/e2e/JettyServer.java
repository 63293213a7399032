package dev.idempotency.e2e;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.TimeUnit;

/** A stock Eclipse Jetty 12 (jetty-home) with an ee10 jetty.base of its own. */
final class JettyServer extends ServerProcess {
    private final Path home;
    private final Path war;

    JettyServer(Path home, Path war) throws IOException {
        super("jetty");
        this.home = home;
        this.war = war;
    }

    static JettyServer jetty12ee10() throws IOException {
        return new JettyServer(E2eEnvironment.jetty12(), E2eEnvironment.war("payments-jakarta.war"));
    }

    /** The legacy shop relocated to jakarta, on Jetty 12 ee10. */
    static JettyServer legacyJetty12ee10() throws IOException {
        return new JettyServer(E2eEnvironment.jetty12(), E2eEnvironment.war("legacy-jakarta.war"));
    }

    @Override
    protected void prepare() throws IOException {
        Path base = work.resolve("base");
        Files.createDirectories(base.resolve("webapps"));
        Process setup = new ProcessBuilder(Path.of(System.getProperty("java.home"), "bin/java").toString(), "-jar",
                home.resolve("start.jar").toString(), "jetty.home=" + home, "jetty.base=" + base, "--add-modules=http,ee10-deploy")
                .directory(base.toFile()).redirectErrorStream(true).redirectOutput(work.resolve("setup.log").toFile()).start();
        try {
            if (!setup.waitFor(120, TimeUnit.SECONDS) || setup.exitValue() != 0) {
                throw new IOException("jetty.base setup failed: " + Files.readString(work.resolve("setup.log")));
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IOException(e);
        }
        Files.copy(war, base.resolve("webapps/shop.war"));
    }

    @Override
    protected List<String> command(Path java, List<String> jvmOptions) {
        Path base = work.resolve("base");
        List<String> cmd = new ArrayList<>();
        cmd.add(java.toString());
        cmd.addAll(jvmOptions);
        cmd.addAll(Arrays.asList("-Djava.io.tmpdir=" + work, "-jar", home.resolve("start.jar").toString(),
                "jetty.home=" + home, "jetty.base=" + base, "jetty.http.host=127.0.0.1", "jetty.http.port=" + port));
        return cmd;
    }
}
