package dev.idempotency.e2e.servers;

import dev.idempotency.e2e.support.E2eEnvironment;
import java.io.IOException;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;
import java.util.Map;

/**
 * A stock Apache TomEE started by its own bin/catalina.sh, as its operators start it: the script adds TomEE's own
 * javaagent (openejb-javaagent.jar) before ours and the module openings it needs. JAX-RS is the server's own (CXF).
 * CATALINA_BASE is a private copy of the distribution's conf.
 */
public final class TomEeServer extends ServerProcess {
    private final Path home;
    private final Path war;

    public TomEeServer(Path home, Path war) throws IOException {
        super("tomee");
        this.home = home;
        this.war = war;
    }

    /** The servlet suite's payments WAR, or the orders WAR on TomEE's JAX-RS. */
    public static ServerProcess tomee8(String war) throws IOException {
        return new TomEeServer(E2eEnvironment.tomee8(), E2eEnvironment.war(war));
    }

    public static ServerProcess tomee9(String war) throws IOException {
        return new TomEeServer(E2eEnvironment.tomee9(), E2eEnvironment.war(war));
    }

    @Override
    protected void prepare() throws IOException {
        TomcatServer.prepareBase(home, work.resolve("base"), port, war);
    }

    /** catalina.sh evaluates CATALINA_OPTS, splitting it on spaces: the agent's settings go into a file. */
    @Override
    protected void environment(Map<String, String> environment, Path javaHome, List<String> jvmOptions) {
        environment.put("JAVA_HOME", javaHome.toString());
        environment.put("JRE_HOME", javaHome.toString());
        environment.put("CATALINA_HOME", home.toString());
        environment.put("CATALINA_BASE", work.resolve("base").toString());
        environment.put("CATALINA_OPTS", String.join(" ", withSettingsInFile(jvmOptions)));
    }

    @Override
    protected List<String> command(Path java, List<String> jvmOptions) {
        return Arrays.asList("/bin/sh", home.resolve("bin/catalina.sh").toString(), "run");
    }
}
