package dev.idempotency.agent.core.inprocess;

import org.junit.platform.launcher.LauncherSession;
import org.junit.platform.launcher.LauncherSessionListener;

/**
 * Installs the agent as JUnit's launcher opens, before test classes are discovered: linking a test class may load the
 * servlet classes it names, and the start-up weaver only sees classes loaded after it. Registered for every test JVM
 * of this module (META-INF/services); does nothing where no weaving mode is set.
 */
public final class InstallAgentFirst implements LauncherSessionListener {
    @Override
    public void launcherSessionOpened(LauncherSession session) {
        InProcessAgent.installIfRequested();
    }
}
