package dev.idempotency.agent.core.inprocess;

import net.bytebuddy.agent.ByteBuddyAgent;

import java.io.File;
import java.io.IOException;
import java.lang.instrument.Instrumentation;
import java.lang.reflect.Method;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.UUID;

import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The agent in this JVM, installed once through {@code AgentInstaller.install} in the weaving mode the surefire
 * execution names: {@code startup} registers the start-up weaver before any server class loads (as the premain does),
 * {@code attach} first loads the servlet API, the servers and the filters, then attaches (as {@code attach PID} does),
 * so those classes are retransformed. The store is an H2 database in memory, new for each JVM.
 */
final class InProcessAgent {
    static final String WEAVING_PROPERTY = "inprocess.weaving";
    static final String TAG = "inprocess";
    private static final String INSTALLER = "dev.idempotency.agent.core.AgentInstaller";
    /** What {@code AgentInstaller} says about the agent's state in this JVM. */
    private static final String STATE_PROPERTY = "dev.idempotency.agent.state";
    /** Classes an attach finds loaded already: the servlet APIs, both servers, the filters and Jersey's parts. */
    private static final String[] LOADED_BEFORE_ATTACH = {
        "javax.servlet.http.HttpServlet", "jakarta.servlet.http.HttpServlet",
        "org.eclipse.jetty.server.Server", "org.apache.catalina.startup.Tomcat",
        "org.apache.catalina.filters.FailedRequestFilter", "org.springframework.web.filter.HiddenHttpMethodFilter",
        "org.glassfish.jersey.servlet.ServletContainer", "org.glassfish.jersey.server.ResourceConfig"};

    enum Weaving { STARTUP, ATTACH }

    private static boolean installed;
    /** Why the agent in this JVM is not what its mode promises, or null. */
    private static String failure;

    private InProcessAgent() {
    }

    /** Installs the agent if this JVM runs a weaving mode and it is not installed yet. */
    static synchronized void installIfRequested() {
        Weaving weaving = weaving();
        if (installed || weaving == null) return;
        installed = true;
        try {
            Instrumentation instrumentation = ByteBuddyAgent.install();
            ClassLoader application = InProcessAgent.class.getClassLoader();
            if (weaving == Weaving.ATTACH) {
                for (String name : LOADED_BEFORE_ATTACH) Class.forName(name, false, application);
            } else {
                List<String> early = loadedServletApis(instrumentation);
                if (!early.isEmpty()) {
                    failure = early + " loaded before the start-up weaver was registered, so not woven (a surefire"
                            + " -Dtest pattern that names the test servlets loads one while it scans)";
                }
            }
            Class<?> installer = Class.forName(INSTALLER, true, new AgentLoader(application));
            // where the agent's classes come from: core's classes here, the agent jar in production
            File agentClasses = new File(installer.getProtectionDomain().getCodeSource().getLocation().toURI());
            Method install = installer.getMethod("install", Instrumentation.class, String.class, File.class,
                    boolean.class);
            String arguments = "settings-file=" + settingsFile(weaving);
            Object started = install.invoke(null, instrumentation, arguments, agentClasses, weaving == Weaving.ATTACH);
            if (!Boolean.TRUE.equals(started)) failure = "the agent did not start: " + state();
        } catch (Exception e) {
            failure = "could not install the agent in-process (" + weaving + "): " + e;
            e.printStackTrace();
        }
    }

    /** The weaving mode of this JVM; fails the test when the agent does not run in it as the mode promises. */
    static synchronized Weaving requireRunning() {
        Weaving weaving = weaving();
        assertTrue(weaving != null, "no weaving mode: run the in-process tests through the surefire executions"
                + " inprocess-startup and inprocess-attach of agent/core");
        assertNull(failure, failure);
        assertTrue(state().startsWith("running"), "the agent is not running in this JVM: " + state());
        return weaving;
    }

    private static Weaving weaving() {
        String mode = System.getProperty(WEAVING_PROPERTY, "");
        return mode.isEmpty() ? null : Weaving.valueOf(mode.toUpperCase(Locale.ROOT));
    }

    private static List<String> loadedServletApis(Instrumentation instrumentation) {
        List<String> loaded = new ArrayList<>();
        for (Class<?> type : instrumentation.getAllLoadedClasses()) {
            if (type.getName().endsWith(".servlet.http.HttpServlet")) loaded.add(type.getName());
        }
        return loaded;
    }

    static String state() {
        return String.valueOf(System.getProperty(STATE_PROPERTY));
    }

    /** The settings, passed the way {@code attach} passes them: a properties file that wins over system properties. */
    private static Path settingsFile(Weaving weaving) throws IOException {
        Path dir = Files.createDirectories(Paths.get("target", "inprocess-" + weaving.name().toLowerCase(Locale.ROOT)));
        Path file = dir.resolve("agent.properties");
        Files.writeString(file, String.join("\n",
                "idempotency.store.url=jdbc:h2:mem:inprocess-" + UUID.randomUUID() + ";DB_CLOSE_DELAY=-1",
                "idempotency.jmx=true",
                "idempotency.required=/shop/transfer/**",
                ""));
        return file.toAbsolutePath();
    }
}
