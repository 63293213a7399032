package dev.idempotency.store.testing;

import java.io.File;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
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
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import java.util.stream.Stream;

/**
 * A MariaDB Galera cluster of the test's own on this machine: the installed {@code mariadbd} with Debian's
 * {@code galera-4} provider, each node with its own data directory and ports, run as the {@code mysql} user when the
 * tests run as root. The first node bootstraps the cluster; the others join it by state transfer (rsync). Node
 * failure detection is shortened (the defaults take 30 s) by each test to what it can bear: the store's GaleraTest
 * evicts after 10 s (at 4 s, a fresh-clone run once saw the two surviving nodes of a busy two-core machine lose their
 * primary component after a kill), GaleraTomcat9IT after 4 s (its servers' 10 s leases must outlast the stall of
 * writes until a killed node is evicted; at 10 s, keys in flight became outcome-unknown).
 */
public final class GaleraCluster implements AutoCloseable {
    private static final String MARIADBD = "/usr/sbin/mariadbd";
    private static final String PROVIDER = "/usr/lib/galera/libgalera_smm.so";
    private static final String INSTALL_DB = "/usr/bin/mariadb-install-db";
    private static final String USER = "mysql";

    private final Path base;
    private final int evictSeconds;
    private final List<Node> nodes = new ArrayList<>();

    /** One member: its SQL port and its process. */
    public static final class Node {
        final int index;
        public final int port;
        final int groupPort;
        final int istPort;
        final int sstPort;
        final Path directory;
        Process process;

        Node(int index, Path directory) throws IOException {
            this.index = index;
            this.directory = directory;
            this.port = LocalServers.freePort();
            this.groupPort = LocalServers.freePort();
            this.istPort = LocalServers.freePort();
            this.sstPort = LocalServers.freePort();
        }

        public String hostAndPort() {
            return "127.0.0.1:" + port;
        }
    }

    private GaleraCluster(Path base, int evictSeconds) {
        this.base = base;
        this.evictSeconds = evictSeconds;
    }

    /**
     * Starts {@code size} nodes and waits until all of them are synced members of one cluster with a database "test". A
     * silent node is suspected after half of {@code evictSeconds} and evicted after all of it: short enough for a test's
     * leases (writes stall until a killed node is evicted), long enough for a live node starved of CPU.
     */
    public static GaleraCluster start(int size, int evictSeconds) throws Exception {
        requireInstallation();
        Path base = Files.createTempDirectory("idem-galera");
        GaleraCluster cluster = new GaleraCluster(base, evictSeconds);
        try {
            for (int i = 1; i <= size; i++) cluster.nodes.add(new Node(i, base.resolve("n" + i)));
            for (Node node : cluster.nodes) Files.createDirectories(node.directory.resolve("data"));
            LocalServers.giveTo(USER, base);
            LocalServers.run(USER, Arrays.asList(INSTALL_DB, "--no-defaults", "--datadir=" + cluster.nodes.get(0).directory.resolve("data"),
                    "--auth-root-authentication-method=normal", "--skip-test-db"), null);
            for (Node node : cluster.nodes) {
                cluster.writeConfiguration(node);
                cluster.launch(node, node.index == 1);
                int expected = node.index;
                Await.until("node " + node.index + " to join a cluster of " + expected, Duration.ofSeconds(120),
                        () -> cluster.status(node, "wsrep_cluster_size") + "/" + cluster.status(node, "wsrep_local_state_comment"),
                        s -> s.equals(expected + "/Synced"));
                if (node.index == 1) cluster.execute(node, "CREATE DATABASE IF NOT EXISTS test");
            }
            return cluster;
        } catch (Exception | Error e) {
            cluster.close();
            throw e;
        }
    }

    public List<Node> nodes() {
        return nodes;
    }

    public Node node(int index) {
        return nodes.get(index - 1);
    }

    /** A JDBC URL of one node alone. */
    public String url(int index) {
        return "jdbc:mariadb://" + node(index).hostAndPort() + "/test?user=root";
    }

    /** A MariaDB Connector/J URL spreading connections over every node and failing over between them. */
    public String loadBalancedUrl() {
        return "jdbc:mariadb:loadbalance://" + nodes.stream().map(Node::hostAndPort).collect(Collectors.joining(",")) + "/test?user=root";
    }

    /** Kills one node as a crash would (SIGKILL): the others must notice and go on without it. */
    public void kill(int index) throws Exception {
        Node node = node(index);
        long pid = Long.parseLong(new String(Files.readAllBytes(node.directory.resolve("pid")), StandardCharsets.US_ASCII).trim());
        new ProcessBuilder("kill", "-9", String.valueOf(pid)).start().waitFor();
        Await.until("node " + index + " to be gone", Duration.ofSeconds(30), () -> new File("/proc/" + pid).exists(), alive -> !alive);
    }

    /** A status variable of a node, or "down" when it does not answer. */
    public String status(Node node, String variable) {
        try (Connection c = DriverManager.getConnection("jdbc:mariadb://" + node.hostAndPort() + "/?user=root&connectTimeout=2000");
             Statement s = c.createStatement(); ResultSet rs = s.executeQuery("SHOW STATUS LIKE '" + variable + "'")) {
            return rs.next() ? rs.getString(2) : "";
        } catch (SQLException e) {
            return "down";
        }
    }

    public void execute(Node node, String statement) throws SQLException {
        try (Connection c = DriverManager.getConnection("jdbc:mariadb://" + node.hostAndPort() + "/?user=root");
             Statement s = c.createStatement()) {
            s.execute(statement);
        }
    }

    private void writeConfiguration(Node node) throws Exception {
        String members = nodes.stream().map(n -> "127.0.0.1:" + n.groupPort).collect(Collectors.joining(","));
        Path dir = node.directory;
        List<String> lines = Arrays.asList("[mariadbd]",
                "datadir=" + dir.resolve("data"), "socket=" + dir.resolve("sock"), "pid-file=" + dir.resolve("pid"),
                "log-error=" + dir.resolve("error.log"), "port=" + node.port, "bind-address=127.0.0.1",
                "binlog_format=ROW", "default_storage_engine=InnoDB", "innodb_autoinc_lock_mode=2",
                "innodb_flush_log_at_trx_commit=0", "innodb_buffer_pool_size=64M", "max_connections=200",
                "wsrep_on=ON", "wsrep_provider=" + PROVIDER, "wsrep_cluster_name=idempotency-test",
                "wsrep_cluster_address=gcomm://" + members, "wsrep_node_address=127.0.0.1:" + node.groupPort,
                "wsrep_node_name=n" + node.index, "wsrep_sst_method=rsync", "wsrep_sst_receive_address=127.0.0.1:" + node.sstPort,
                "wsrep_provider_options=\"base_port=" + node.groupPort + ";ist.recv_addr=127.0.0.1:" + node.istPort
                        + ";gcache.size=64M;evs.suspect_timeout=PT" + evictSeconds / 2.0 + "S;evs.inactive_timeout=PT" + evictSeconds + "S"
                        + ";evs.inactive_check_period=PT0.5S"
                        + ";evs.keepalive_period=PT0.5S\"");
        Files.write(dir.resolve("my.cnf"), (String.join("\n", lines) + "\n").getBytes(StandardCharsets.UTF_8));
        LocalServers.giveTo(USER, dir);
    }

    private void launch(Node node, boolean bootstrap) throws IOException {
        List<String> line = new ArrayList<>(Arrays.asList(MARIADBD, "--defaults-file=" + node.directory.resolve("my.cnf")));
        if (bootstrap) line.add("--wsrep-new-cluster");
        node.process = LocalServers.as(USER, line.toArray(new String[0])).redirectErrorStream(true)
                .redirectOutput(node.directory.resolve("console.log").toFile()).start();
    }

    @Override
    public void close() throws Exception {
        try {
            for (Node node : nodes) {
                try {
                    stop(node);
                } catch (Exception e) {
                    System.err.println("galera node " + node.index + " did not stop cleanly: " + e);
                }
            }
        } finally {
            try (Stream<Path> paths = Files.walk(base)) {
                paths.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
            }
        }
    }

    /** Stops a node's server, and kills what its pid file names only while that is still this node's mariadbd. */
    private static void stop(Node node) throws Exception {
        if (node.process != null && node.process.isAlive()) {
            node.process.destroy();
            if (!node.process.waitFor(30, TimeUnit.SECONDS)) node.process.destroyForcibly();
        }
        Path pidFile = node.directory.resolve("pid");
        if (!Files.exists(pidFile)) return;
        String pid = new String(Files.readAllBytes(pidFile), StandardCharsets.US_ASCII).trim();
        Path commandLine = Path.of("/proc", pid, "cmdline");
        if (Files.exists(commandLine) && new String(Files.readAllBytes(commandLine), StandardCharsets.UTF_8).contains(node.directory.toString())) {
            new ProcessBuilder("kill", "-9", pid).start().waitFor();
        }
    }

    /** The error log of a node, for a failure message. */
    public String errorLog(int index) throws IOException {
        Path log = node(index).directory.resolve("error.log");
        return Files.exists(log) ? new String(Files.readAllBytes(log), StandardCharsets.UTF_8) : "";
    }

    private static void requireInstallation() {
        for (String needed : new String[] {MARIADBD, PROVIDER, INSTALL_DB, "/usr/bin/rsync"}) {
            if (new File(needed).exists()) continue;
            LocalServers.unavailable(needed + " is missing: a Galera cluster needs Debian's mariadb-server, galera-4 and rsync");
        }
    }

}
