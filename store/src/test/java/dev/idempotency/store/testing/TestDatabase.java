package dev.idempotency.store.testing;

import org.testcontainers.DockerClientFactory;
import org.testcontainers.containers.JdbcDatabaseContainer;
import org.testcontainers.containers.MariaDBContainer;
import org.testcontainers.containers.PostgreSQLContainer;

import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Supplier;

/**
 * Where a test database comes from: the URL in an environment variable when set; otherwise a Testcontainers container
 * when a Docker engine answers; otherwise the test is skipped with the reason, or fails when
 * {@code -Didempotency.test.require-databases=true} (CI) says every database must be exercised.
 */
public final class TestDatabase {
    public static final String POSTGRES_ENV = "IDEMPOTENCY_TEST_POSTGRES_URL";
    public static final String MARIADB_ENV = "IDEMPOTENCY_TEST_MARIADB_URL";

    private static final Map<String, TestDatabase> CONTAINERS = new ConcurrentHashMap<>();

    public final String url;
    public final String user;
    public final String password;

    public TestDatabase(String url, String user, String password) {
        this.url = url;
        this.user = user;
        this.password = password;
    }

    public static TestDatabase postgres() {
        return fromEnvironmentOrContainer(POSTGRES_ENV, () -> new PostgreSQLContainer<>("postgres:16-alpine"));
    }

    public static TestDatabase mariadb() {
        return fromEnvironmentOrContainer(MARIADB_ENV, () -> new MariaDBContainer<>("mariadb:10.11"));
    }

    private static TestDatabase fromEnvironmentOrContainer(String variable, Supplier<JdbcDatabaseContainer<?>> container) {
        String url = System.getenv(variable);
        if (url != null && !url.trim().isEmpty()) return new TestDatabase(url.trim(), null, null);
        return CONTAINERS.computeIfAbsent(variable, v -> {
            if (!dockerAvailable()) {
                LocalServers.unavailable(variable + " is not set and no Docker engine is available for Testcontainers");
            }
            JdbcDatabaseContainer<?> started = container.get();
            started.start();
            return new TestDatabase(started.getJdbcUrl(), started.getUsername(), started.getPassword());
        });
    }

    private static boolean dockerAvailable() {
        try {
            return DockerClientFactory.instance().isDockerAvailable();
        } catch (Throwable e) {
            return false;
        }
    }

    /** The same URL with its host and port replaced, to route it through a {@link TcpProxy}. */
    public String viaPort(String host, int port) {
        return url.replaceFirst("//[^/]+/", "//" + host + ":" + port + "/");
    }

    /** The host and port the URL points at. */
    public String hostAndPort() {
        java.util.regex.Matcher m = java.util.regex.Pattern.compile("//([^/:]+)(?::(\\d+))?/").matcher(url);
        if (!m.find()) throw new IllegalStateException("no host in " + url);
        return m.group(1) + ":" + m.group(2);
    }

    /** A connection as this database's user, with these driver properties (the store's own, or none). */
    public java.sql.Connection connect(java.util.Properties properties) throws java.sql.SQLException {
        java.util.Properties p = new java.util.Properties();
        p.putAll(properties);
        if (user != null) p.setProperty("user", user);
        if (password != null) p.setProperty("password", password);
        return java.sql.DriverManager.getConnection(url, p);
    }

    /** Drops a key table of the store's and the tables made with it (CASCADE: PostgreSQL's partitions; MariaDB ignores it). */
    public void dropKeyTable(String table) throws java.sql.SQLException {
        try (java.sql.Connection c = connect(new java.util.Properties()); java.sql.Statement s = c.createStatement()) {
            for (String suffix : new String[] {"", "_secret", "_effects", "_schema"}) s.execute("DROP TABLE IF EXISTS " + table + suffix + " CASCADE");
        }
    }
}
