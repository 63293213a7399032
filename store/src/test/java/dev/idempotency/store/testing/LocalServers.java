package dev.idempotency.store.testing;

import org.junit.jupiter.api.Assertions;
import org.junit.jupiter.api.Assumptions;

import java.io.IOException;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * What the tests need to run database servers of their own from the machine's packages: free ports, commands run as
 * the server's own user (the servers refuse root), and one rule for a database a test cannot have.
 */
public final class LocalServers {
    private static final long COMMAND_SECONDS = 120;

    private LocalServers() {
    }

    /**
     * A database this test cannot have: the test is skipped with the reason, or fails when
     * {@code -Didempotency.test.require-databases=true} (CI) says every database must be exercised.
     */
    public static void unavailable(String reason) {
        if (Boolean.getBoolean("idempotency.test.require-databases")) Assertions.fail(reason + " (databases are required)");
        Assumptions.abort(reason);
    }

    public static int freePort() throws IOException {
        try (ServerSocket socket = new ServerSocket(0)) {
            return socket.getLocalPort();
        }
    }

    static boolean runningAsRoot() {
        return "root".equals(System.getProperty("user.name"));
    }

    /** A command run as {@code user} when the tests run as root, as themselves otherwise. */
    static ProcessBuilder as(String user, String... line) {
        List<String> all = new ArrayList<>();
        if (runningAsRoot()) all.addAll(Arrays.asList("runuser", "-u", user, "--"));
        all.addAll(Arrays.asList(line));
        return new ProcessBuilder(all);
    }

    /** Gives a directory tree to {@code user} when the tests run as root. */
    static void giveTo(String user, Path path) throws Exception {
        if (!runningAsRoot()) return;
        Process chown = new ProcessBuilder("chown", "-R", user + ":" + user, path.toString()).inheritIO().start();
        if (chown.waitFor() != 0) throw new IllegalStateException("cannot give " + path + " to the " + user + " user");
    }

    /**
     * Runs a command as {@code user} and waits for it (at most two minutes); a failure names the command, what it printed
     * and {@code context} (a server log, say).
     */
    static void run(String user, List<String> line, Path context) throws Exception {
        Path output = Files.createTempFile("server-command", ".log");
        try {
            Process process = as(user, line.toArray(new String[0])).redirectErrorStream(true).redirectOutput(output.toFile()).start();
            boolean finished = process.waitFor(COMMAND_SECONDS, TimeUnit.SECONDS);
            if (!finished) process.destroyForcibly();
            if (finished && process.exitValue() == 0) return;
            String printed = new String(Files.readAllBytes(output), StandardCharsets.UTF_8);
            String more = context != null && Files.exists(context) ? "\n" + new String(Files.readAllBytes(context), StandardCharsets.UTF_8) : "";
            throw new IllegalStateException(String.join(" ", line) + (finished ? " failed:\n" : " did not finish in "
                    + COMMAND_SECONDS + " s:\n") + printed + more);
        } finally {
            Files.deleteIfExists(output);
        }
    }
}
