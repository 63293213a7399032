package dev.idempotency.store.redis;

import dev.idempotency.store.testing.LocalServers;
import redis.clients.jedis.Jedis;
import redis.clients.jedis.Protocol;
import redis.clients.jedis.exceptions.JedisConnectionException;
import redis.clients.jedis.exceptions.JedisDataException;
import redis.clients.jedis.exceptions.JedisException;

import java.io.File;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * A redis-server of a test's own on a free loopback port, for what a test must not do to the shared one (another
 * eviction policy, a full memory, a failover; the end-to-end tests too): no persistence, stopped and gone with
 * {@link #close}.
 */
public final class OwnRedis implements AutoCloseable {
    public final int port;
    private final Process process;
    /** The server's own directory: a replica writes the data set it receives there, which another server must not load. */
    private final File dir;
    /** What it wrote: a sentinel's events tell what it did when a failover test fails. */
    private final File log;

    private OwnRedis(int port, Process process, File dir, File log) {
        this.port = port;
        this.process = process;
        this.dir = dir;
        this.log = log;
    }

    /** A server on a free port. */
    public static OwnRedis start(String... settings) throws Exception {
        return onAFreePort(port -> startOn(port, settings));
    }

    /** Starts a server on a port. */
    interface Starter {
        OwnRedis startOn(int port) throws Exception;
    }

    /**
     * A server on a free port, tried again on another if that one was taken before the server bound it: free ports
     * come from the range the system also gives outgoing connections.
     */
    static OwnRedis onAFreePort(Starter starter) throws Exception {
        for (int attempt = 1; ; attempt++) {
            try {
                return starter.startOn(LocalServers.freePort());
            } catch (IllegalStateException taken) {
                if (attempt == 3) throw taken;
            }
        }
    }

    /** A server on {@code port} (a replica's, say, which a test restarts on the same port). */
    public static OwnRedis startOn(int port, String... settings) throws Exception {
        String binary = binary();
        if (binary == null) LocalServers.unavailable("redis-server is not installed");
        File dir = java.nio.file.Files.createTempDirectory("own-redis-" + port).toFile();
        List<String> line = new ArrayList<>(Arrays.asList(binary, "--port", Integer.toString(port), "--bind", "127.0.0.1",
                "--save", "", "--appendonly", "no", "--daemonize", "no", "--dir", dir.getPath()));
        line.addAll(Arrays.asList(settings));
        return launch(port, line, dir);
    }

    /**
     * A sentinel watching {@code master} under {@code masterName}, quorum 2, a master down after one second without
     * an answer: its configuration file is its own (a sentinel rewrites it).
     */
    public static OwnRedis sentinel(String masterName, int masterPort) throws Exception {
        return onAFreePort(port -> sentinelOn(port, masterName, masterPort));
    }

    private static OwnRedis sentinelOn(int port, String masterName, int masterPort) throws Exception {
        String binary = binary();
        if (binary == null) LocalServers.unavailable("redis-server is not installed");
        File dir = java.nio.file.Files.createTempDirectory("own-sentinel-" + port).toFile();
        File conf = new File(dir, "sentinel.conf");
        conf.deleteOnExit();
        java.nio.file.Files.write(conf.toPath(), Arrays.asList("port " + port, "bind 127.0.0.1",
                "dir " + dir.getPath(),
                "sentinel monitor " + masterName + " 127.0.0.1 " + masterPort + " 2",
                "sentinel down-after-milliseconds " + masterName + " 1000",
                "sentinel failover-timeout " + masterName + " 5000",
                "sentinel parallel-syncs " + masterName + " 1"));
        return launch(port, new ArrayList<>(Arrays.asList(binary, conf.getPath(), "--sentinel")), dir);
    }

    private static OwnRedis launch(int port, List<String> line, File dir) throws Exception {
        File log = File.createTempFile("own-redis", ".log");
        log.deleteOnExit();
        Process process = new ProcessBuilder(line).redirectErrorStream(true).redirectOutput(log).start();
        OwnRedis redis = new OwnRedis(port, process, dir, log);
        try {
            redis.awaitAnswer();
            return redis;
        } catch (Exception | Error e) {
            redis.close(); // never leave a server behind
            throw e;
        }
    }

    private void awaitAnswer() throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (true) {
            try (Jedis client = connect()) {
                client.ping();
                return;
            } catch (JedisDataException e) {
                return; // it answers, asking for a password
            } catch (JedisConnectionException e) {
                if (!process.isAlive() || System.nanoTime() > deadline) {
                    throw new IllegalStateException("redis-server did not start on port " + port, e);
                }
                Thread.sleep(20); // nothing to await but the port opening
            }
        }
    }

    public String url() { return "redis://127.0.0.1:" + port; }

    /** A sentinel that can fail {@code master} over: it sees its {@code replicas} and the two other sentinels. */
    public boolean readyToFailOver(String master, int replicas) {
        try (Jedis s = connect()) {
            s.sendCommand(Protocol.Command.SENTINEL, "CKQUORUM", master);
            List<?> seen = (List<?>) s.sendCommand(Protocol.Command.SENTINEL, "REPLICAS", master);
            List<?> others = (List<?>) s.sendCommand(Protocol.Command.SENTINEL, "SENTINELS", master);
            return seen.size() == replicas && others.size() == 2;
        } catch (JedisException notYet) {
            return false;
        }
    }

    /** The port of the master a sentinel names now, or -1. */
    public int masterPortNamed(String master) {
        try (Jedis s = connect()) {
            List<?> named = (List<?>) s.sendCommand(Protocol.Command.SENTINEL, "GET-MASTER-ADDR-BY-NAME", master);
            return Integer.parseInt(new String((byte[]) named.get(1), java.nio.charset.StandardCharsets.UTF_8));
        } catch (JedisException notYet) {
            return -1;
        }
    }

    public boolean isMaster() {
        try (Jedis r = connect()) {
            return "master".equals(String.valueOf(r.role().get(0)));
        } catch (JedisException e) {
            return false;
        }
    }

    public Jedis connect() { return new Jedis("127.0.0.1", port); }

    /** A sentinel's events so far ({@code +sdown}, {@code +switch-master}, ...), one per line, for a failure message. */
    public String events() {
        try {
            StringBuilder events = new StringBuilder();
            for (String line : java.nio.file.Files.readAllLines(log.toPath())) {
                if (line.matches(".* [#*] [-+].*")) events.append(line).append('\n');
            }
            return events.toString();
        } catch (java.io.IOException e) {
            return "(its log is unreadable: " + e + ")";
        }
    }

    public static boolean installed() {
        return binary() != null;
    }

    private static String binary() {
        return onPath("redis-server");
    }

    /** The path of an installed command, or null. */
    static String onPath(String command) {
        for (String dir : System.getenv("PATH").split(File.pathSeparator)) {
            File f = new File(dir, command);
            if (f.canExecute()) return f.getPath();
        }
        return null;
    }

    /** SIGSTOP: its connections stay open, and it answers nothing (a replica then acknowledges nothing). */
    public void pause() throws Exception {
        signal("-STOP");
    }

    /** SIGCONT after {@link #pause}. */
    public void resume() throws Exception {
        signal("-CONT");
    }

    private void signal(String which) throws Exception {
        Process kill = new ProcessBuilder("kill", which, Long.toString(process.pid())).inheritIO().start();
        if (kill.waitFor() != 0) throw new IllegalStateException("kill " + which + " failed");
    }

    /** SIGKILL: a crash, with nothing flushed or handed over. */
    public void kill() throws InterruptedException {
        process.destroyForcibly().waitFor();
        removeDir();
    }

    @Override
    public void close() throws InterruptedException {
        process.destroy();
        if (!process.waitFor(10, TimeUnit.SECONDS)) process.destroyForcibly().waitFor();
        removeDir();
    }

    private void removeDir() {
        File[] files = dir.listFiles();
        if (files != null) for (File f : files) f.delete();
        dir.delete();
    }

}
