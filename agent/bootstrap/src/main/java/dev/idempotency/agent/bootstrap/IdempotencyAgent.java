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

    private IdempotencyAgent() {
    }

    public static void premain(String arguments, Instrumentation instrumentation) {
        start(arguments, instrumentation);
    }

    public static void agentmain(String arguments, Instrumentation instrumentation) {
        start(arguments, instrumentation);
    }

    private static synchronized void start(String arguments, Instrumentation instrumentation) {
        try {
            File jar = agentJar();
            instrumentation.appendToBootstrapClassLoaderSearch(new JarFile(jar));
            ClassLoader isolated = new AgentClassLoader(jar);
            Class<?> installer = Class.forName(INSTALLER, true, isolated);
            installer.getMethod("install", Instrumentation.class, String.class, File.class)
                    .invoke(null, instrumentation, arguments, jar);
        } catch (Throwable t) {
            Throwable cause = t instanceof java.lang.reflect.InvocationTargetException ? t.getCause() : t;
            System.err.println("[idempotency-agent] ERROR could not start (" + cause + "); the application runs UNPROTECTED");
        }
    }

    private static File agentJar() throws URISyntaxException {
        return new File(IdempotencyAgent.class.getProtectionDomain().getCodeSource().getLocation().toURI());
    }
}
