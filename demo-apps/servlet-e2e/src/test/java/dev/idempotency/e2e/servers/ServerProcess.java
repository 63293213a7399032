package dev.idempotency.e2e.servers;

import dev.idempotency.e2e.support.E2eEnvironment;
import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * A stock server distribution run as a real process with the real agent jar: started, stopped gracefully, or killed
 * with SIGKILL, then started again on the same port and state (its work directory holds the agent's H2 store under a
 * private user.home, and the application's ledger).
 */
public abstract class ServerProcess implements AutoCloseable {
    public final Path work;
    public final int port;
    private String contextPath = "/shop";
    private String readinessPath = "/counters";
    private final Map<String, String> agentSettings = new LinkedHashMap<>();
    private Path javaHome = Path.of(System.getProperty("java.home"));
    private boolean withAgent = true;
    private String heap = "256m";
    private final List<String> jvmOptionsBeforeAgent = new ArrayList<>();
    private final List<String> jvmOptionsAfterAgent = new ArrayList<>();
    private Process process;
    private int starts;

    public ServerProcess(String name) throws IOException {
        this.work = E2eEnvironment.work().resolve(name + "-" + Long.toHexString(System.nanoTime()));
        Files.createDirectories(work);
        this.port = freePort();
        // The store's connections may take seconds to make when this machine's CPU is contended (measured: 20-40 %
        // stolen by the host); the scenarios are about behaviour, not speed. Tests of outages set their own timeout.
        agentSettings.put("idempotency.store.connect-timeout", "10s");
    }

    public ServerProcess set(String setting, String value) {
        agentSettings.put(setting, value);
        return this;
    }

    /** Without the agent, for overhead comparisons. */
    /** The maximum heap, as -Xmx takes it (256m unless set). */
    public ServerProcess heap(String maxHeap) {
        this.heap = maxHeap;
        return this;
    }

    public ServerProcess withAgent(boolean agent) {
        this.withAgent = agent;
        return this;
    }

    /** JVM options placed before our -javaagent (another agent that must load first, say). */
    public ServerProcess jvmOptionsBeforeAgent(String... options) {
        jvmOptionsBeforeAgent.addAll(List.of(options));
        return this;
    }

    /** JVM options placed right after our -javaagent (another agent that must load second, say). */
    public ServerProcess jvmOptionsAfterAgent(String... options) {
        jvmOptionsAfterAgent.addAll(List.of(options));
        return this;
    }

    public ServerProcess javaHome(Path home) {
        this.javaHome = home;
        return this;
    }

    /** Where the application answers ("/shop" for a deployed shop.war, "" at the root) and which path says it is up. */
    public ServerProcess application(String contextPath, String readinessPath) {
        this.contextPath = contextPath;
        this.readinessPath = readinessPath;
        return this;
    }

    /** The URL of the demo application's context. */
    public String baseUrl() {
        return "http://127.0.0.1:" + port + contextPath;
    }

    /** The process id of the server's JVM (for attach). */
    public synchronized long pid() {
        if (process == null) throw new IllegalStateException("not running");
        return process.pid();
    }

    public Path log() {
        return work.resolve("server-" + starts + ".log");
    }

    /** The command that runs the server in the foreground, given the JVM options. */
    protected abstract List<String> command(Path java, List<String> jvmOptions) throws IOException;

    /** For launchers that take the JVM from the environment (scripts); nothing by default. */
    protected void environment(Map<String, String> environment, Path javaHome, List<String> jvmOptions) {
    }

    /** Lays out the server's base directory and deploys the WAR; called once, before the first start. */
    protected abstract void prepare() throws IOException;

    public synchronized void start() throws IOException, InterruptedException {
        if (starts == 0) prepare();
        starts++;
        List<String> jvm = new ArrayList<>();
        jvm.addAll(jvmOptionsBeforeAgent);
        if (withAgent) jvm.add("-javaagent:" + E2eEnvironment.agentJar());
        jvm.addAll(jvmOptionsAfterAgent);
        jvm.add("-Duser.home=" + work.resolve("home"));
        jvm.add("-Dpayments.db=" + work.resolve("ledger"));
        jvm.add("-Xmx" + heap);
        agentSettings.forEach((k, v) -> jvm.add("-D" + k + "=" + v));
        ProcessBuilder builder = new ProcessBuilder(command(javaHome.resolve("bin/java"), jvm))
                .directory(work.toFile()).redirectErrorStream(true).redirectOutput(log().toFile());
        environment(builder.environment(), javaHome, jvm);
        process = builder.start();
        awaitReady();
    }

    private void awaitReady() throws IOException, InterruptedException {
        HttpClient client = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(2)).build();
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(90);
        while (System.nanoTime() < deadline) {
            if (!process.isAlive()) throw new IllegalStateException("server exited with " + process.exitValue() + ":\n" + logTail());
            try {
                HttpResponse<String> r = client.send(HttpRequest.newBuilder(URI.create(baseUrl() + readinessPath)).build(),
                        HttpResponse.BodyHandlers.ofString());
                if (r.statusCode() == 200) return;
            } catch (IOException notYet) {
                // not listening yet
            }
            Thread.sleep(200);
        }
        throw new IllegalStateException("server did not become ready in 90 s (thread dumps: " + dumpThreads() + "):\n" + logTail());
    }

    /** Thread dumps of every JVM of the server's process tree, for a server that hangs; returns where they are. */
    private String dumpThreads() {
        Path dump = work.resolve("threads-" + starts + ".txt");
        Path jcmd = javaHome.resolve("bin/jcmd");
        try {
            for (ProcessHandle p : tree()) {
                new ProcessBuilder(jcmd.toString(), String.valueOf(p.pid()), "Thread.print")
                        .redirectErrorStream(true).redirectOutput(ProcessBuilder.Redirect.appendTo(dump.toFile())).start()
                        .waitFor(30, TimeUnit.SECONDS);
            }
        } catch (IOException | InterruptedException e) {
            return "unavailable: " + e;
        }
        return dump.toString();
    }

    /** Graceful stop (SIGTERM: the JVM runs its shutdown hooks), of the launcher and of the JVM it started, if any. */
    public synchronized void stop() throws InterruptedException {
        if (process == null) return;
        List<ProcessHandle> tree = tree();
        tree.forEach(ProcessHandle::destroy);
        for (ProcessHandle p : tree) {
            try {
                p.onExit().get(30, TimeUnit.SECONDS);
            } catch (java.util.concurrent.ExecutionException | java.util.concurrent.TimeoutException e) {
                p.destroyForcibly();
            }
        }
        process = null;
    }

    /** kill -9: no shutdown hook, no cleanup, as a crash would leave things. */
    public synchronized void kill() throws InterruptedException {
        if (process == null) return;
        List<ProcessHandle> tree = tree();
        tree.forEach(ProcessHandle::destroyForcibly);
        for (ProcessHandle p : tree) p.onExit().join();
        process = null;
    }

    private List<ProcessHandle> tree() {
        List<ProcessHandle> tree = new ArrayList<>();
        process.toHandle().descendants().forEach(tree::add);
        tree.add(process.toHandle());
        return tree;
    }

    public String logTail() {
        try {
            List<String> lines = Files.readAllLines(log(), StandardCharsets.UTF_8);
            return String.join("\n", lines.subList(Math.max(0, lines.size() - 60), lines.size()));
        } catch (IOException e) {
            return "(no log: " + e + ")";
        }
    }

    /** Every agent line the server printed so far, across starts. */
    public String agentLines() throws IOException {
        StringBuilder all = new StringBuilder();
        for (int i = 1; i <= starts; i++) {
            Path p = work.resolve("server-" + i + ".log");
            if (!Files.exists(p)) continue;
            for (String line : Files.readAllLines(p, StandardCharsets.UTF_8)) if (line.contains("[idempotency-agent]")) all.append(line).append('\n');
        }
        return all.toString();
    }

    @Override
    public void close() throws InterruptedException {
        stop();
    }

    /**
     * For launch scripts that split their options on spaces (WildFly's standalone.sh, TomEE's catalina.sh): the agent's
     * settings go into a properties file named by idempotency.config, as an operator of such a server keeps them.
     * Returns the other options, with the one naming that file.
     */
    protected List<String> withSettingsInFile(List<String> jvmOptions) {
        java.util.Properties settings = new java.util.Properties();
        List<String> options = new ArrayList<>();
        for (String option : jvmOptions) {
            if (option.startsWith("-Didempotency.")) {
                int eq = option.indexOf('=');
                settings.setProperty(option.substring(2, eq), option.substring(eq + 1));
            } else {
                options.add(option);
            }
        }
        Path file = work.resolve("idempotency-agent.properties");
        try (java.io.Writer out = Files.newBufferedWriter(file)) {
            settings.store(out, "agent settings for this server");
        } catch (IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
        options.add("-Didempotency.config=" + file);
        return options;
    }

    public static int freePort() throws IOException {
        try (ServerSocket s = new ServerSocket(0, 50, InetAddress.getLoopbackAddress())) {
            return s.getLocalPort();
        }
    }

    public static void copyTree(Path from, Path to) throws IOException {
        try (var paths = Files.walk(from)) {
            for (Path p : (Iterable<Path>) paths::iterator) {
                Path target = to.resolve(from.relativize(p).toString());
                if (Files.isDirectory(p)) Files.createDirectories(target);
                else Files.copy(p, target);
            }
        }
    }
}
