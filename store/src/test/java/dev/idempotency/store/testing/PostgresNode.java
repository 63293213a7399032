package dev.idempotency.store.testing;

import java.io.File;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.List;
import java.util.stream.Stream;

/**
 * A PostgreSQL server of the test's own, made with the machine's installed PostgreSQL ({@code initdb}, {@code pg_ctl},
 * {@code pg_basebackup}, {@code pg_rewind}) in a directory of its own, on a port of its own, run as the {@code postgres}
 * user when the tests run as root. Used where a test must do to a server what it must never do to the shared one:
 * kill it, promote a standby, make commits wait for a standby that is not there.
 */
public final class PostgresNode implements AutoCloseable {
    private static final String BIN_ENV = "IDEMPOTENCY_TEST_POSTGRES_BIN";
    private static final String USER = "postgres";

    public final String name;
    public final Path dataDirectory;
    public final int port;
    private final Path log;
    private final Path socketDirectory;

    private PostgresNode(String name, Path base, int port) {
        this.name = name;
        this.dataDirectory = base.resolve(name);
        this.port = port;
        this.log = base.resolve(name + ".log");
        this.socketDirectory = base;
    }

    /** A new primary, started, with replication allowed and the given lines added to its configuration. */
    public static PostgresNode primary(Path base, String name, String... settings) throws Exception {
        PostgresNode node = new PostgresNode(name, base, LocalServers.freePort());
        node.run("initdb", "-D", node.dataDirectory.toString(), "-U", "postgres", "--auth=trust", "-E", "UTF8",
                "--locale=C", "--no-sync");
        List<String> lines = new ArrayList<>(node.commonSettings());
        lines.addAll(Arrays.asList(settings));
        node.appendConfiguration("postgresql.conf", lines);
        node.start();
        return node;
    }

    /** A streaming standby of {@code primary}, made by {@code pg_basebackup}, known to it as {@code name}. */
    public static PostgresNode standbyOf(PostgresNode primary, String name, String... settings) throws Exception {
        PostgresNode node = new PostgresNode(name, primary.dataDirectory.getParent(), LocalServers.freePort());
        node.run("pg_basebackup", "-h", "127.0.0.1", "-p", String.valueOf(primary.port), "-U", "postgres",
                "-D", node.dataDirectory.toString(), "-X", "stream", "-R", "--no-sync");
        List<String> lines = new ArrayList<>(node.commonSettings());
        lines.add("primary_conninfo = '" + primary.conninfo() + " application_name=" + name + "'");
        lines.addAll(Arrays.asList(settings));
        node.appendConfiguration("postgresql.auto.conf", lines);
        node.start();
        return node;
    }

    private List<String> commonSettings() {
        return Arrays.asList("port = " + port, "listen_addresses = '127.0.0.1'",
                "unix_socket_directories = '" + socketDirectory + "'", "wal_level = replica", "max_wal_senders = 10",
                "wal_log_hints = on", "hot_standby = on", "fsync = off", "shared_buffers = 32MB", "max_connections = 60",
                "wal_keep_size = 256MB");
    }

    public String conninfo() {
        return "host=127.0.0.1 port=" + port + " user=postgres";
    }

    public String hostAndPort() {
        return "127.0.0.1:" + port;
    }

    /** A JDBC URL of this server alone. */
    public String url() {
        return "jdbc:postgresql://" + hostAndPort() + "/postgres?user=postgres";
    }

    public void start() throws Exception {
        run("pg_ctl", "-D", dataDirectory.toString(), "-l", log.toString(), "-w", "-t", "60", "start");
    }

    /** Stops the server as a crash would: the postmaster and every backend get SIGKILL, nothing is flushed or said. */
    public void kill() throws Exception {
        List<String> pid = Files.readAllLines(dataDirectory.resolve("postmaster.pid"));
        String postmaster = pid.get(0).trim();
        // Postmaster and backends in one signal: killing the backends first would start the postmaster's crash handling.
        Process children = new ProcessBuilder("pgrep", "-P", postmaster).start();
        List<String> all = new ArrayList<>(Arrays.asList("kill", "-9", postmaster));
        all.addAll(Arrays.asList(new String(children.getInputStream().readAllBytes(), StandardCharsets.US_ASCII).trim().split("\\s+")));
        all.removeIf(String::isEmpty);
        command(all.toArray(new String[0])).start().waitFor();
        Await.until(name + " to be gone", Duration.ofSeconds(30), () -> new File("/proc/" + postmaster).exists(), alive -> !alive);
    }

    public void stopFast() throws Exception {
        run("pg_ctl", "-D", dataDirectory.toString(), "-m", "fast", "-w", "-t", "60", "stop");
    }

    /** Turns a standby into a primary and waits until it accepts writes. */
    public void promote() throws Exception {
        run("pg_ctl", "-D", dataDirectory.toString(), "-w", "-t", "60", "promote");
    }

    /**
     * Brings a crashed former primary back as a standby of {@code newPrimary}: {@code pg_rewind} discards what it wrote
     * that the new primary never saw, then it follows the new primary.
     */
    public void rejoinAsStandbyOf(PostgresNode newPrimary) throws Exception {
        run("pg_rewind", "-D", dataDirectory.toString(), "--source-server=" + newPrimary.conninfo() + " dbname=postgres");
        Files.write(dataDirectory.resolve("standby.signal"), new byte[0]);
        appendConfiguration("postgresql.auto.conf", Arrays.asList(
                "primary_conninfo = '" + newPrimary.conninfo() + " application_name=" + name + "'",
                "synchronous_standby_names = ''"));
        start();
    }

    /** One value the server answers to {@code query}, on a connection of the test's own. */
    public String queryValue(String query) throws SQLException {
        try (Connection c = DriverManager.getConnection(url()); Statement s = c.createStatement(); ResultSet rs = s.executeQuery(query)) {
            return rs.next() ? rs.getString(1) : null;
        }
    }

    public void execute(String statement) throws SQLException {
        try (Connection c = DriverManager.getConnection(url()); Statement s = c.createStatement()) {
            s.execute(statement);
        }
    }

    /** Server processes serving clients that call themselves {@code applicationName}. */
    public int backends(String applicationName) throws SQLException {
        return Integer.parseInt(queryValue("SELECT count(*) FROM pg_stat_activity WHERE application_name = '"
                + applicationName.replace("'", "''") + "'"));
    }

    private void appendConfiguration(String file, List<String> lines) throws IOException {
        Files.write(dataDirectory.resolve(file), (String.join("\n", lines) + "\n").getBytes(StandardCharsets.UTF_8),
                StandardOpenOption.APPEND);
    }

    @Override
    public void close() throws Exception {
        if (Files.exists(dataDirectory.resolve("postmaster.pid"))) {
            command(bin("pg_ctl").toString(), "-D", dataDirectory.toString(), "-m", "immediate", "-w", "stop").start().waitFor();
        }
    }

    /** The base directory for nodes, writable by the user the servers run as; removed with {@link #removeAll}. */
    public static Path baseDirectory(String prefix) throws Exception {
        installation(); // skips or fails first when there is no PostgreSQL to run
        Path base = Files.createTempDirectory(prefix);
        LocalServers.giveTo(USER, base);
        return base;
    }

    public static void removeAll(Path base) throws IOException {
        if (base == null || !Files.exists(base)) return;
        try (Stream<Path> paths = Files.walk(base)) {
            paths.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
        }
    }

    private void run(String program, String... args) throws Exception {
        List<String> line = new ArrayList<>();
        line.add(bin(program).toString());
        line.addAll(Arrays.asList(args));
        LocalServers.run(USER, line, log);
    }

    /** A command run as the postgres user when the tests run as root. */
    private static ProcessBuilder command(String... line) {
        return LocalServers.as(USER, line);
    }

    private static Path bin(String program) {
        return installation().resolve(program);
    }

    /** The newest installed PostgreSQL's bin directory, or the one {@value #BIN_ENV} names. */
    private static Path installation() {
        String configured = System.getenv(BIN_ENV);
        if (configured != null && !configured.trim().isEmpty()) return Path.of(configured.trim());
        File[] versions = new File("/usr/lib/postgresql").listFiles(f -> new File(f, "bin/initdb").canExecute());
        if (versions == null || versions.length == 0) {
            LocalServers.unavailable("no PostgreSQL installation to run test servers from (/usr/lib/postgresql/*/bin, or " + BIN_ENV + ")");
        }
        Arrays.sort(versions, Comparator.comparingInt(f -> Integer.parseInt(f.getName().replaceAll("\\D", "0"))));
        return versions[versions.length - 1].toPath().resolve("bin");
    }
}
