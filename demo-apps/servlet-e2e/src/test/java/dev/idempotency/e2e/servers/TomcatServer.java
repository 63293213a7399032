package dev.idempotency.e2e.servers;

import dev.idempotency.e2e.support.E2eEnvironment;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/** A stock Apache Tomcat: CATALINA_HOME is the unpacked distribution, CATALINA_BASE a private copy of its conf. */
public final class TomcatServer extends ServerProcess {
    private final Path home;
    private final Path war;
    private final List<Path> libraries = new ArrayList<>();
    private String contextXml;

    public TomcatServer(Path home, Path war) throws IOException {
        super("tomcat");
        this.home = home;
        this.war = war;
    }

    public static TomcatServer tomcat9() throws IOException {
        return new TomcatServer(E2eEnvironment.tomcat9(), E2eEnvironment.war("payments-javax.war"));
    }

    public static TomcatServer tomcat10() throws IOException {
        return new TomcatServer(E2eEnvironment.tomcat10(), E2eEnvironment.war("payments-jakarta.war"));
    }

    /** Tomcat 11 (Servlet 6.1, jakarta) with the payments WAR. */
    public static TomcatServer tomcat11() throws IOException {
        return new TomcatServer(E2eEnvironment.tomcat11(), E2eEnvironment.war("payments-jakarta.war"));
    }

    /** The legacy shop (filters that read the form first, its own authentication, uploads, async work) on Tomcat 9. */
    public static TomcatServer legacyTomcat9() throws IOException {
        return new TomcatServer(E2eEnvironment.tomcat9(), E2eEnvironment.war("legacy-javax.war"));
    }

    /** The legacy shop relocated to jakarta, on Tomcat 10.1. */
    public static TomcatServer legacyTomcat10() throws IOException {
        return new TomcatServer(E2eEnvironment.tomcat10(), E2eEnvironment.war("legacy-jakarta.war"));
    }

    /** The legacy shop relocated to jakarta, on Tomcat 11. */
    public static TomcatServer legacyTomcat11() throws IOException {
        return new TomcatServer(E2eEnvironment.tomcat11(), E2eEnvironment.war("legacy-jakarta.war"));
    }

    /** The transfers WAR, whose DataSource the caller declares with {@link #context} and whose driver goes to lib/. */
    public static TomcatServer transfersTomcat9() throws IOException {
        return new TomcatServer(E2eEnvironment.tomcat9(), E2eEnvironment.war("transfers.war"));
    }

    /** That a Tomcat's own start-up lines say it ran on the given Java major version (its JVM Version line). */
    public static void assertRunsOnJava(ServerProcess tomcat, int major) throws IOException {
        String log = new String(Files.readAllBytes(tomcat.log()), StandardCharsets.UTF_8);
        java.util.regex.Matcher version = java.util.regex.Pattern.compile("JVM Version:\\s+(\\d+)\\.(\\d+)").matcher(log);
        org.junit.jupiter.api.Assertions.assertTrue(version.find(), "no JVM Version line in " + tomcat.log());
        int first = Integer.parseInt(version.group(1));
        // Java 8 still names itself 1.8
        org.junit.jupiter.api.Assertions.assertEquals(major, first == 1 ? Integer.parseInt(version.group(2)) : first, "the server's JVM");
    }

    /** Jars for the server's common class loader (CATALINA_BASE/lib): the JDBC driver of a container DataSource. */
    public TomcatServer library(Path jar) {
        libraries.add(jar);
        return this;
    }

    /** The application's context descriptor (conf/Catalina/localhost/shop.xml): its resources, as an operator declares them. */
    public TomcatServer context(String xml) {
        this.contextXml = xml;
        return this;
    }

    /**
     * A CATALINA_BASE of its own for a Tomcat-shaped distribution (Tomcat, TomEE): the distribution's conf, no shutdown
     * port, the HTTP connector on the given loopback port, and the WAR as shop.war.
     */
    public static void prepareBase(Path home, Path base, int port, Path war) throws IOException {
        copyTree(home.resolve("conf"), base.resolve("conf"));
        for (String dir : new String[] {"logs", "temp", "work", "webapps"}) Files.createDirectories(base.resolve(dir));
        Path serverXml = base.resolve("conf/server.xml");
        String xml = new String(Files.readAllBytes(serverXml), StandardCharsets.UTF_8)
                .replace("port=\"8005\"", "port=\"-1\"")
                .replace("port=\"8080\"", "port=\"" + port + "\" address=\"127.0.0.1\"");
        Files.write(serverXml, xml.getBytes(StandardCharsets.UTF_8));
        Files.copy(war, base.resolve("webapps/shop.war"));
    }

    @Override
    protected void prepare() throws IOException {
        Path base = work.resolve("base");
        prepareBase(home, base, port, war);
        if (!libraries.isEmpty()) Files.createDirectories(base.resolve("lib"));
        for (Path jar : libraries) Files.copy(jar, base.resolve("lib").resolve(jar.getFileName()));
        if (contextXml != null) {
            Path descriptor = base.resolve("conf/Catalina/localhost/shop.xml");
            Files.createDirectories(descriptor.getParent());
            Files.write(descriptor, contextXml.getBytes(StandardCharsets.UTF_8));
        }
    }

    @Override
    protected List<String> command(Path java, List<String> jvmOptions) {
        Path base = work.resolve("base");
        List<String> cmd = new ArrayList<>();
        cmd.add(java.toString());
        cmd.addAll(jvmOptions);
        cmd.add("-Djava.util.logging.manager=org.apache.juli.ClassLoaderLogManager");
        cmd.add("-Djava.util.logging.config.file=" + base.resolve("conf/logging.properties"));
        cmd.add("-Dcatalina.home=" + home);
        cmd.add("-Dcatalina.base=" + base);
        cmd.add("-Djava.io.tmpdir=" + base.resolve("temp"));
        cmd.add("-cp");
        cmd.add(home.resolve("bin/bootstrap.jar") + ":" + home.resolve("bin/tomcat-juli.jar"));
        cmd.add("org.apache.catalina.startup.Bootstrap");
        cmd.add("start");
        return cmd;
    }
}
