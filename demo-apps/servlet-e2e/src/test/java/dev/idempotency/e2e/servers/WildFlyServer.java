package dev.idempotency.e2e.servers;

import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;
import java.util.Map;

/**
 * A stock WildFly started by its own bin/standalone.sh, the agent in JAVA_OPTS as an operator would put it. The server
 * base directory is a private copy of standalone/; the WAR goes into its deployments folder. Nothing is configured for
 * JBoss Modules: the agent arranges its own visibility.
 */
public final class WildFlyServer extends ServerProcess {
    private final Path home;
    private final Path war;
    private final int managementPort;

    public WildFlyServer(Path home, Path war) throws IOException {
        super("wildfly");
        this.home = home;
        this.war = war;
        try (ServerSocket s = new ServerSocket(0, 50, InetAddress.getLoopbackAddress())) {
            this.managementPort = s.getLocalPort();
        }
    }

    @Override
    protected void prepare() throws IOException {
        Path base = work.resolve("standalone");
        copyTree(home.resolve("standalone"), base);
        Files.copy(war, base.resolve("deployments/shop.war"));
    }

    /** standalone.sh splits JAVA_OPTS on spaces: the agent's settings go into a file. */
    @Override
    protected void environment(Map<String, String> environment, Path javaHome, List<String> jvmOptions) {
        List<String> options = withSettingsInFile(jvmOptions);
        environment.put("JAVA_HOME", javaHome.toString());
        environment.put("JAVA", javaHome.resolve("bin/java").toString());
        // standalone.conf adds its defaults (heap, JBoss Modules system packages) when JAVA_OPTS is unset; keep them.
        environment.put("JAVA_OPTS", "-Xms64m -Xmx512m -Djava.net.preferIPv4Stack=true -Djboss.modules.system.pkgs=org.jboss.byteman "
                + "-Djava.awt.headless=true " + String.join(" ", options));
        environment.put("JBOSS_HOME", home.toString());
    }

    @Override
    protected List<String> command(Path java, List<String> jvmOptions) {
        return Arrays.asList("/bin/sh", home.resolve("bin/standalone.sh").toString(),
                "-Djboss.server.base.dir=" + work.resolve("standalone"), "-Djboss.bind.address=127.0.0.1",
                "-Djboss.http.port=" + port, "-Djboss.management.http.port=" + managementPort);
    }
}
