package dev.idempotency.agent.bootstrap;

import java.io.File;
import java.lang.instrument.Instrumentation;
import java.net.URISyntaxException;
import java.util.jar.JarFile;

/**
 * The {@code -javaagent} entry point. It does as little as possible: it makes the bridge classes visible to every
 * class loader (bootstrap search path), creates the isolated loader for everything else and hands over. It touches no
 * logging facility and never lets a failure escape into the host.
 */
public final class IdempotencyAgent {

    private static final String INSTALLER = "dev.idempotency.agent.core.AgentInstaller";
    private static final String BRIDGE_PACKAGE = "dev.idempotency.agent.bootstrap";
    /** JBoss Modules (WildFly, JBoss EAP) delegates only these packages (and java.*) to the class path. */
    private static final String JBOSS_SYSTEM_PACKAGES = "jboss.modules.system.pkgs";

    private IdempotencyAgent() {
    }

    /** Set once the agent started in this JVM, whichever way: a second start (attach after -javaagent) does nothing. */
    private static boolean started;

    public static void premain(String arguments, Instrumentation instrumentation) {
        start(arguments, instrumentation, false);
    }

    /** Attached to a running JVM ({@code java -jar idempotency-agent.jar attach PID}). */
    public static void agentmain(String arguments, Instrumentation instrumentation) {
        start(arguments, instrumentation, true);
    }

    private static synchronized void start(String arguments, Instrumentation instrumentation, boolean attached) {
        if (started) {
            System.err.println("[idempotency-agent] INFO already running in this JVM; the new start is ignored");
            return;
        }
        started = true;
        try {
            makeBridgeVisibleToJBossModules();
            File jar = agentJar();
            instrumentation.appendToBootstrapClassLoaderSearch(new JarFile(jar));
            ClassLoader isolated = new AgentClassLoader(jar);
            Class<?> installer = Class.forName(INSTALLER, true, isolated);
            // nothing installed (settings rejected): a later attach with other settings may try again
            started = Boolean.TRUE.equals(installer.getMethod("install", Instrumentation.class, String.class, File.class, boolean.class)
                    .invoke(null, instrumentation, arguments, jar, attached));
        } catch (Throwable t) {
            started = false;
            Throwable cause = t instanceof java.lang.reflect.InvocationTargetException ? t.getCause() : t;
            System.err.println("[idempotency-agent] ERROR could not start (" + cause + "); the application runs UNPROTECTED");
        }
    }

    /**
     * Modules of a JBoss Modules host see only their declared dependencies, not the bootstrap class path, so the advice
     * inlined into their servlets could not reach the bridge. The host reads this property when its main starts, after
     * the premain: adding the bridge package here spares the operator from configuring it by hand.
     */
    private static void makeBridgeVisibleToJBossModules() {
        String packages = System.getProperty(JBOSS_SYSTEM_PACKAGES);
        if (packages == null || packages.trim().isEmpty()) {
            System.setProperty(JBOSS_SYSTEM_PACKAGES, BRIDGE_PACKAGE);
        } else if (!(',' + packages.replace(" ", "") + ',').contains(',' + BRIDGE_PACKAGE + ',')) {
            System.setProperty(JBOSS_SYSTEM_PACKAGES, packages + "," + BRIDGE_PACKAGE);
        }
    }

    static File agentJar() throws URISyntaxException {
        return new File(IdempotencyAgent.class.getProtectionDomain().getCodeSource().getLocation().toURI());
    }
}
