package dev.idempotency.store.bench;

import dev.idempotency.store.StoreSettings;
import dev.idempotency.store.jdbc.JdbcIdempotencyStore;
import dev.idempotency.store.jdbc.dialect.Dialect;

import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.SQLTransactionRollbackException;
import java.util.ArrayList;
import java.util.List;
import java.util.Properties;

/**
 * The database's ceiling for keyed requests: the two single-row statements of a first request (reserve a new key,
 * store its response), in the same shape as store/bench/reserve-complete.pgbench.sql, one connection per client,
 * autocommit, nothing else. For MariaDB/MySQL, which have no pgbench, and for the embedded H2 (a database file of its
 * own, in the engine settings the store gives H2: each commit written to the file before it returns); PostgreSQL works
 * too, for comparison with pgbench. Run by demo-apps/bench/run.sh, not a test.
 *
 * <p>Arguments: JDBC URL, table (created by the agent; on H2 by the store's own schema code), clients, warm-up seconds,
 * seconds. Prints one line:
 * {@code RESULT requests=N duration_us=N p50_us=N p99_us=N errors=N}.
 */
public final class JdbcCeilingBenchmark {
    private static final String SCOPE = "jdbc-ceiling";
    private static final String TOKEN = "00000000-0000-0000-0000-000000000000";
    private static final String HEADERS = "[[\"Content-Type\",\"application/json\"]]";
    private static final byte[] BODY = "{\"id\":\"ch_1\"}".getBytes(StandardCharsets.UTF_8);

    public static void main(String[] args) throws Exception {
        if (args.length != 5) {
            System.err.println("usage: JdbcCeilingBenchmark JDBC_URL TABLE CLIENTS WARMUP_SECONDS SECONDS");
            System.exit(2);
        }
        String url = args[0];
        String table = args[1];
        int clients = Integer.parseInt(args[2]);
        int warmUp = Integer.parseInt(args[3]);
        int seconds = Integer.parseInt(args[4]);
        String[] statements = statements(url, table);
        Properties properties = new Properties();
        if (url.startsWith("jdbc:h2:")) {
            StoreSettings settings = StoreSettings.builder().url(url).table(table).build();
            try (JdbcIdempotencyStore store = JdbcIdempotencyStore.open(settings)) {
                store.checkSchema();
            }
            // H2's defaults write a commit to the file up to 500 ms later: not the same work as the store's commits.
            properties = Dialect.forUrl(url).driverProperties(settings);
        }

        List<Connection> connections = new ArrayList<>();
        try {
            // Connected and prepared before the clock starts, as pgbench reports tps "without initial connection time".
            List<CeilingLoop.Cycle> cycles = new ArrayList<>();
            for (int i = 0; i < clients; i++) {
                Connection connection = DriverManager.getConnection(url, properties);
                connections.add(connection);
                cycles.add(cycle(connection.prepareStatement(statements[0]), connection.prepareStatement(statements[1])));
            }
            CeilingLoop.measure(cycles, warmUp, seconds);
        } finally {
            for (Connection c : connections) c.close();
        }
    }

    /** Reserve a new key, then record its response: one request's two statements. */
    private static CeilingLoop.Cycle cycle(PreparedStatement reserve, PreparedStatement complete) {
        return key -> {
            reserve.setString(1, key);
            complete.setString(1, HEADERS);
            complete.setBytes(2, BODY);
            complete.setString(3, key);
            try {
                return reserve.executeUpdate() == 1 && complete.executeUpdate() == 1;
            } catch (SQLTransactionRollbackException deadlockVictim) {
                return false; // InnoDB's gap locks can pick one: counted, and the client goes on
            }
        };
    }

    /** The reserve insert and the complete update, as the store's dialect writes them (constants where it binds). */
    private static String[] statements(String url, String table) {
        if (url.startsWith("jdbc:mariadb:") || url.startsWith("jdbc:mysql:")) {
            return statements(table, "INSERT IGNORE INTO", "", "UTC_TIMESTAMP(3)",
                    "TIMESTAMPADD(MICROSECOND, CAST(30000 AS SIGNED) * 1000, UTC_TIMESTAMP(3))",
                    "TIMESTAMPADD(MICROSECOND, CAST(86400000 AS SIGNED) * 1000, UTC_TIMESTAMP(3))");
        }
        if (url.startsWith("jdbc:postgresql:")) {
            return statements(table, "INSERT INTO", " ON CONFLICT (scope, idem_key) DO NOTHING", "CURRENT_TIMESTAMP",
                    "CURRENT_TIMESTAMP + 30000 * INTERVAL '1 millisecond'", "CURRENT_TIMESTAMP + 86400000 * INTERVAL '1 millisecond'");
        }
        if (url.startsWith("jdbc:h2:")) {
            // H2 has no conflict-ignoring insert (the store reads its duplicate-key error); every key here is new.
            return statements(table, "INSERT INTO", "", "CURRENT_TIMESTAMP",
                    "DATEADD(MILLISECOND, CAST(30000 AS BIGINT), CURRENT_TIMESTAMP)",
                    "DATEADD(MILLISECOND, CAST(86400000 AS BIGINT), CURRENT_TIMESTAMP)");
        }
        throw new IllegalArgumentException("not a PostgreSQL, MariaDB, MySQL or H2 URL: " + url);
    }

    /** {@code now}, {@code lease} and {@code expiry}: the database's expressions for now, now + 30 s and now + 24 h. */
    private static String[] statements(String table, String insert, String onConflict, String now, String lease, String expiry) {
        String columns = "scope, idem_key, fingerprint, status, owner_token, lease_expires_at, attempts, created_at, updated_at, expires_at";
        String values = "'" + SCOPE + "', ?, 'fingerprint', 'IN_FLIGHT', '" + TOKEN + "', " + lease + ", 1, " + now + ", " + now + ", " + expiry;
        return new String[] {
                insert + " " + table + " (" + columns + ") VALUES (" + values + ")" + onConflict,
                "UPDATE " + table + " SET status = 'COMPLETED', response_status = 201, response_headers = ?, response_body = ?, "
                        + "lease_expires_at = NULL, updated_at = " + now + " WHERE scope = '" + SCOPE + "' AND idem_key = ? "
                        + "AND owner_token = '" + TOKEN + "' AND status IN ('IN_FLIGHT', 'UNKNOWN')"};
    }
}
