package dev.idempotency.e2e.support;

import java.io.IOException;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.TimeUnit;

/** {@code java -jar idempotency-agent.jar ...} as an operator runs it: a separate process, its exit code and output. */
public final class AgentTool {
    private AgentTool() {
    }

    public static final class Result {
        public final int exit;
        public final String out;
        public final String err;

        public Result(int exit, String out, String err) {
            this.exit = exit;
            this.out = out;
            this.err = err;
        }

        @Override
        public String toString() {
            return "exit " + exit + "\n--- stdout\n" + out + "--- stderr\n" + err;
        }
    }

    public static Result run(String... args) throws IOException, InterruptedException {
        return run(Path.of(System.getProperty("java.home")), "", args);
    }

    public static Result run(Path javaHome, String stdin, String... args) throws IOException, InterruptedException {
        List<String> command = new ArrayList<>(Arrays.asList(javaHome.resolve("bin/java").toString(), "-jar",
                E2eEnvironment.agentJar().toString()));
        command.addAll(Arrays.asList(args));
        Files.createDirectories(E2eEnvironment.work());
        Path out = Files.createTempFile(E2eEnvironment.work(), "tool-", ".out");
        Path err = Files.createTempFile(E2eEnvironment.work(), "tool-", ".err");
        Process process = new ProcessBuilder(command).redirectOutput(out.toFile()).redirectError(err.toFile()).start();
        try (OutputStream in = process.getOutputStream()) {
            in.write(stdin.getBytes(StandardCharsets.UTF_8));
        }
        if (!process.waitFor(120, TimeUnit.SECONDS)) {
            process.destroyForcibly();
            throw new AssertionError("the tool did not finish in 120 s: " + command);
        }
        Result result = new Result(process.exitValue(), Files.readString(out, StandardCharsets.UTF_8), Files.readString(err, StandardCharsets.UTF_8));
        // Every command and what it printed, for a reader of the test's work directory (docs/operations.md's session comes from it).
        Files.writeString(E2eEnvironment.work().resolve("operator-session.txt"), "$ java -jar idempotency-agent.jar "
                + String.join(" ", args) + "\n" + result.out + result.err + "(exit " + result.exit + ")\n\n", StandardCharsets.UTF_8,
                java.nio.file.StandardOpenOption.CREATE, java.nio.file.StandardOpenOption.APPEND);
        return result;
    }
}
