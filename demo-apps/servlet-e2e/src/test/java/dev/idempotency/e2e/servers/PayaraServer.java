package dev.idempotency.e2e.servers;

import dev.idempotency.e2e.support.E2eEnvironment;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * A stock Payara Server (GlassFish's OSGi kernel, Felix) started by its own {@code asadmin start-domain --verbose}, the
 * agent among the domain's jvm-options as an operator adds it. The domain is a private copy of the distribution's
 * domain1 with its listeners on free ports; the WAR is autodeployed as shop.war. Nothing is configured for OSGi boot
 * delegation: the agent arranges its own visibility.
 */
public final class PayaraServer extends ServerProcess {
    private static final Pattern PORT = Pattern.compile("(port|start-port|das-port)=\"(\\d+)\"");
    private final Path home;
    private final Path war;
    /** The JVM options the domain holds from the last start, none before the first. */
    private List<String> optionsInDomain = java.util.Collections.emptyList();

    public PayaraServer(Path home, Path war) throws IOException {
        super("payara");
        this.home = home;
        this.war = war;
    }

    public static PayaraServer payara5() throws IOException {
        return new PayaraServer(E2eEnvironment.payara5(), E2eEnvironment.war("payments-javax.war"));
    }

    public static PayaraServer payara6() throws IOException {
        return new PayaraServer(E2eEnvironment.payara6(), E2eEnvironment.war("payments-jakarta.war"));
    }

    private Path domain() {
        return work.resolve("domains/domain1");
    }

    @Override
    protected void prepare() throws IOException {
        copyTree(home.resolve("glassfish/domains/domain1"), domain());
        Files.createDirectories(domain().resolve("autodeploy"));
        Files.copy(war, domain().resolve("autodeploy/shop.war"));
    }

    /**
     * The domain's configuration for this start: on the first, its server's listeners on free ports; on every start,
     * this start's JVM options in place of the last start's (the server has since written the deployed application
     * into the same file).
     */
    private void configure(List<String> jvmOptions) throws IOException {
        Path file = domain().resolve("config/domain.xml");
        String xml = new String(Files.readAllBytes(file), StandardCharsets.UTF_8);
        for (String option : optionsInDomain) xml = xml.replaceFirst("\\s*" + Pattern.quote(jvmOption(option)), "");
        int defaults = xml.indexOf("<config name=\"default-config\"");
        String server = xml.substring(0, defaults);
        if (optionsInDomain.isEmpty()) {
            StringBuilder ported = new StringBuilder();
            Matcher m = PORT.matcher(server);
            while (m.find()) {
                int chosen = "8080".equals(m.group(2)) ? port : freePort();
                m.appendReplacement(ported, m.group(1) + "=\"" + chosen + "\"");
            }
            m.appendTail(ported);
            server = ported.toString();
        }
        StringBuilder options = new StringBuilder();
        for (String option : jvmOptions) options.append(jvmOption(option));
        String firstOption = "<jvm-options>-Xmx512m</jvm-options>";
        if (!server.contains(firstOption)) throw new IllegalStateException("no " + firstOption + " in " + file + " to put the options before");
        server = server.replaceFirst(Pattern.quote(firstOption), Matcher.quoteReplacement(options + firstOption));
        Files.write(file, (server + xml.substring(defaults)).getBytes(StandardCharsets.UTF_8));
        optionsInDomain = jvmOptions;
    }

    private static String jvmOption(String option) {
        return "<jvm-options>" + xmlEscaped(option) + "</jvm-options>";
    }

    @Override
    protected void environment(Map<String, String> environment, Path javaHome, List<String> jvmOptions) {
        environment.put("AS_JAVA", javaHome.toString());
        environment.put("JAVA_HOME", javaHome.toString());
        try {
            configure(jvmOptions);
        } catch (IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
    }

    @Override
    protected List<String> command(Path java, List<String> jvmOptions) {
        return Arrays.asList("/bin/sh", home.resolve("bin/asadmin").toString(), "start-domain", "--verbose",
                "--domaindir", work.resolve("domains").toString(), "domain1");
    }

    private static String xmlEscaped(String text) {
        return text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;").replace("\"", "&quot;");
    }
}
