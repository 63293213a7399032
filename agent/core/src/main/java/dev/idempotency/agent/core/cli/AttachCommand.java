package dev.idempotency.agent.core.cli;

import dev.idempotency.agent.core.AgentInstaller;
import dev.idempotency.agent.core.config.AgentConfig;
import dev.idempotency.agent.core.config.AttachArguments;

import java.io.File;
import java.io.FileOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.Properties;

/**
 * {@code list-jvms} and {@code attach PID [setting=value ...]}: loads the agent into a running JVM through the JDK's
 * attach API. Servlets and filters already loaded are retransformed; requests in flight finish untouched.
 */
final class AttachCommand {
    private final CliConsole console;
    private final File agentJar;

    AttachCommand(CliConsole console, File agentJar) {
        this.console = console;
        this.agentJar = agentJar;
    }

    int listJvms(CliArguments arguments) {
        arguments.allowOnly("list-jvms");
        arguments.expectPositional("list-jvms", 1);
        AttachApi api = AttachApi.load();
        String self = AttachApi.currentPid();
        console.out.println(String.format("%-8s %s", "PID", "MAIN CLASS OR JAR"));
        for (AttachApi.Jvm jvm : api.list()) {
            if (jvm.id.equals(self)) continue;
            console.out.println(String.format("%-8s %s", jvm.id, jvm.displayName.isEmpty() ? "(unnamed)" : jvm.displayName));
        }
        return OperatorCli.OK;
    }

    int attach(CliArguments arguments) {
        arguments.allowOnly("attach");
        if (arguments.positional().size() < 2) throw new UsageException("attach needs the PID of the JVM (list-jvms shows them)");
        String pid = arguments.positional(1);
        if (!pid.matches("\\d+")) throw new UsageException("'" + pid + "' is not a process id");
        Properties settings = new Properties();
        for (String word : arguments.positional().subList(2, arguments.positional().size())) addSetting(settings, word);

        AttachApi api = AttachApi.load();
        try (AttachApi.Session vm = api.attach(pid)) {
            Properties target = vm.systemProperties();
            String state = target.getProperty(AgentInstaller.STATE_PROPERTY);
            if (state != null && state.startsWith("running")) {
                console.out.println("already attached: the agent is " + state + " in JVM " + pid + "; nothing to do");
                return OperatorCli.OK;
            }
            if (state != null) console.out.println("the agent did not start in JVM " + pid + " before (" + state + "); trying again");
            String javaVersion = target.getProperty("java.specification.version", "?");
            Path file = settingsFile(settings, pid);
            try {
                vm.loadAgent(agentJar.getAbsolutePath(), AttachArguments.SETTINGS_FILE + file.toAbsolutePath());
            } finally {
                deleteQuietly(file);
            }
            String after = vm.systemProperties().getProperty(AgentInstaller.STATE_PROPERTY, "not started (see the JVM's log)");
            if (!after.startsWith("running")) {
                console.err.println("attached, but the agent did not start in JVM " + pid + ": " + after);
                return OperatorCli.FAILED;
            }
            console.out.println("attached to JVM " + pid + " (Java " + javaVersion + "): " + after);
            console.out.println("requests in flight finish untouched; every request from now on is protected. The agent stays"
                    + " until the JVM exits: add -javaagent:" + agentJar.getAbsolutePath() + " to its start options to keep it"
                    + " across restarts.");
            if (majorVersion(javaVersion) >= 21) {
                console.out.println("note: Java " + javaVersion + " prints \"WARNING: A Java agent has been loaded dynamically\" in"
                        + " that JVM's log unless it runs with -XX:+EnableDynamicAgentLoading. The warning is expected; a future"
                        + " JDK may refuse agents loaded this way without that option, which is one more reason for -javaagent.");
            }
            return OperatorCli.OK;
        }
    }

    private static void addSetting(Properties settings, String word) {
        int equals = word.indexOf('=');
        if (equals <= 0) throw new UsageException("'" + word + "' is not a setting; expected name=value, e.g. store.url=jdbc:postgresql://db/app");
        String name = word.substring(0, equals).trim();
        if (!name.startsWith("idempotency.")) name = "idempotency." + name;
        if (!AgentConfig.DEFAULTS.containsKey(name)) throw new UsageException("unknown setting '" + name + "'");
        settings.setProperty(name, word.substring(equals + 1));
    }

    /**
     * Readable by its owner only: it may hold the store's password. Owned by the target JVM's user (root may attach to
     * another user's JVM, which must be able to read it). Deleted once the agent has read it.
     */
    private static Path settingsFile(Properties settings, String pid) {
        try {
            Path file = Files.createTempFile("idempotency-attach-", ".properties");
            file.toFile().deleteOnExit();
            try {
                Files.setPosixFilePermissions(file, PosixFilePermissions.fromString("rw-------"));
                Path process = Paths.get("/proc", pid);
                if (Files.exists(process)) Files.setOwner(file, Files.getOwner(process));
            } catch (UnsupportedOperationException | IOException | SecurityException notPosixOrNotRoot) {
                // the temporary directory's own protection applies; a JVM of another user then says it cannot read it
            }
            try (OutputStream out = new FileOutputStream(file.toFile())) {
                settings.store(out, "settings passed by idempotency-agent attach");
            }
            return file;
        } catch (IOException e) {
            throw new AttachApi.AttachFailure("cannot write the settings for the target JVM: " + e);
        }
    }

    private static void deleteQuietly(Path file) {
        try {
            Files.deleteIfExists(file);
        } catch (IOException ignored) {
            // a temporary file; the system cleans it
        }
    }

    private static int majorVersion(String specification) {
        try {
            return Integer.parseInt(specification.startsWith("1.") ? specification.substring(2) : specification);
        } catch (NumberFormatException e) {
            return 0;
        }
    }
}
