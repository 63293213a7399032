package dev.idempotency.e2e.servers;

import dev.idempotency.e2e.support.E2eEnvironment;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.TimeUnit;

/** A stock Eclipse Jetty (jetty-home) with a jetty.base of its own: Jetty 12 with ee10, Jetty 11 and 9.4 with their one deployer. */
public final class JettyServer extends ServerProcess {
    private final Path home;
    private final Path war;
    /** How this version's start.jar enables the modules a base needs (Jetty 9.4 says --add-to-start). */
    private final String modules;

    public JettyServer(Path home, Path war, String modules) throws IOException {
        super("jetty");
        this.home = home;
        this.war = war;
        this.modules = modules;
    }

    public static JettyServer jetty12ee10() throws IOException {
        return new JettyServer(E2eEnvironment.jetty12(), E2eEnvironment.war("payments-jakarta.war"), "--add-modules=http,ee10-deploy");
    }

    /** The legacy shop relocated to jakarta, on Jetty 12 ee10. */
    public static JettyServer legacyJetty12ee10() throws IOException {
        return new JettyServer(E2eEnvironment.jetty12(), E2eEnvironment.war("legacy-jakarta.war"), "--add-modules=http,ee10-deploy");
    }

    /** Jetty 9.4 (Servlet 3.1, javax) with the payments WAR. */
    public static JettyServer jetty94() throws IOException {
        return new JettyServer(E2eEnvironment.jetty94(), E2eEnvironment.war("payments-javax.war"), "--add-to-start=http,deploy");
    }

    /** Jetty 11 (Servlet 5, jakarta) with the payments WAR. */
    public static JettyServer jetty11() throws IOException {
        return new JettyServer(E2eEnvironment.jetty11(), E2eEnvironment.war("payments-jakarta.war"), "--add-modules=http,deploy");
    }

    @Override
    protected void prepare() throws IOException {
        Path base = work.resolve("base");
        Files.createDirectories(base.resolve("webapps"));
        Process setup = new ProcessBuilder(Path.of(System.getProperty("java.home"), "bin/java").toString(), "-jar",
                home.resolve("start.jar").toString(), "jetty.home=" + home, "jetty.base=" + base, modules)
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
