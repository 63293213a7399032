package dev.idempotency.store.jdbc.dialect;

import dev.idempotency.store.StoreSettings;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Instant;
import java.time.LocalDateTime;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Properties;
import java.util.Set;

/** MariaDB and MySQL. Timestamps are DATETIME in UTC so that session time zones of different nodes never matter. */
final class MySqlDialect extends Dialect {

    /*
     * Columns compared in WHERE clauses, with the VARBINARY size schema version 2 gives them. Character columns are
     * compared under their collation, and utf8mb4_bin and ascii_bin are PAD SPACE: 'abc ' = 'abc'. VARBINARY compares
     * the bytes. The sizes hold the longest value the store accepts in UTF-8 (255 characters of up to 4 bytes), so
     * INSERT IGNORE can never truncate one.
     */
    private static final Map<String, Integer> BINARY_COLUMNS = new LinkedHashMap<>();

    static {
        BINARY_COLUMNS.put("scope", 1020);
        BINARY_COLUMNS.put("idem_key", 1020);
        BINARY_COLUMNS.put("fingerprint", 512);
        BINARY_COLUMNS.put("status", 16);
        BINARY_COLUMNS.put("owner_token", 36);
    }

    private final boolean mysqlUrl;

    MySqlDialect(boolean mysqlUrl) {
        this.mysqlUrl = mysqlUrl;
    }

    @Override public String name() { return "mysql"; }
    // InnoDB's locking reads see the latest rows at any level, and its statement-based binary log refuses read committed writes
    @Override public boolean lockingReadsSeeLatestRows() { return true; }

    // jdbc:mysql: URLs are served by the MariaDB driver too (it accepts them when permitMysqlScheme is set).
    @Override public String driverClassName() { return "org.mariadb.jdbc.Driver"; }

    @Override
    public Properties driverProperties(StoreSettings settings) {
        Properties p = new Properties();
        p.setProperty("connectTimeout", String.valueOf(settings.connectTimeout().toMillis()));
        p.setProperty("socketTimeout", String.valueOf(1000L * (seconds(settings.queryTimeout()) + NETWORK_GRACE_SECONDS)));
        p.setProperty("tcpKeepAlive", "true");
        if (mysqlUrl) p.setProperty("permitMysqlScheme", "true");
        // Group commit needs each batched statement's own update count; the bulk protocol reports the batch as a whole.
        p.setProperty("useBulkStmts", "false");
        p.setProperty("useBulkStmtsForInserts", "false");
        // Each statement prepared once per connection and then sent as an id and binary values: the text protocol
        // sent every statement's whole text (about 500 bytes) for MariaDB to parse again, which cost 5 to 24 % of the
        // keyed requests per second in the benchmark. The store has a few dozen statements, so a connection keeps
        // about that many of the server's max_prepared_stmt_count (16382 by default). A URL that says otherwise wins.
        p.setProperty("useServerPrepStmts", "true");
        // As on PostgreSQL: a row lock held elsewhere fails fast (InnoDB waits 50 s by default), in whole seconds here.
        p.setProperty("sessionVariables", "innodb_lock_wait_timeout=" + Math.max(1, lockTimeoutMillis(settings) / 1000));
        return p;
    }

    @Override public String now() { return "UTC_TIMESTAMP(3)"; }

    @Override public String nowPlusMillisParameter() { return "TIMESTAMPADD(MICROSECOND, CAST(? AS SIGNED) * 1000, UTC_TIMESTAMP(3))"; }

    @Override public String millisUntil(String column) {
        return "(TIMESTAMPDIFF(MICROSECOND, UTC_TIMESTAMP(3), " + column + ") DIV 1000)";
    }

    // INSERT IGNORE only downgrades the duplicate key here: every other value is validated before it reaches SQL.
    @Override
    public String insertIfAbsent(String table, String columns, String values, String primaryKey) {
        return "INSERT IGNORE INTO " + table + " (" + columns + ") VALUES (" + values + ")";
    }

    @Override
    public String limitedUpdate(String table, String set, String where, int limit) {
        return "UPDATE " + table + " SET " + set + " WHERE " + where + " LIMIT " + limit;
    }

    @Override
    public String limitedDelete(String table, String where, int limit) {
        return "DELETE FROM " + table + " WHERE " + where + " LIMIT " + limit;
    }

    @Override public String limitParameter() { return " LIMIT ?"; }

    @Override
    public String upgradeResource(int from) {
        return from == 1 ? "dev/idempotency/store/schema/mysql-upgrade-1-to-2.sql" : null;
    }

    /**
     * The indexes of tables made before completions left every secondary index alone: all three led by status, which a
     * completion changes, so InnoDB rewrote an entry in each for every completion. MySQL has no DROP INDEX IF EXISTS,
     * so the table's indexes are read first; a node racing this one fails its ALTER and, trying again, finds nothing
     * left to do.
     */
    private static final List<String> EARLIER_INDEXES = Arrays.asList("_lease_idx", "_expiry_idx", "_updated_idx");
    private static final Map<String, String> SHIPPED_INDEXES = new LinkedHashMap<>();

    static {
        SHIPPED_INDEXES.put("_lease_at_idx", "lease_expires_at");
        SHIPPED_INDEXES.put("_expires_at_idx", "expires_at");
    }

    @Override
    public List<String> indexChanges(Connection connection, String table) throws SQLException {
        int dot = table.indexOf('.');
        String name = dot < 0 ? table : table.substring(dot + 1);
        Set<String> present = new HashSet<>();
        try (PreparedStatement ps = connection.prepareStatement("SELECT DISTINCT INDEX_NAME"
                + " FROM information_schema.STATISTICS WHERE TABLE_SCHEMA = COALESCE(?, DATABASE()) AND TABLE_NAME = ?")) {
            ps.setString(1, dot < 0 ? null : table.substring(0, dot));
            ps.setString(2, name);
            try (ResultSet rs = ps.executeQuery()) {
                while (rs.next()) present.add(rs.getString(1).toLowerCase(Locale.ROOT));
            }
        }
        List<String> changes = new ArrayList<>();
        for (Map.Entry<String, String> index : SHIPPED_INDEXES.entrySet()) {
            String indexName = name + index.getKey();
            if (present.contains(indexName.toLowerCase(Locale.ROOT))) continue;
            changes.add("ADD INDEX " + indexName + " (" + index.getValue() + ")");
        }
        for (String suffix : EARLIER_INDEXES) {
            if (present.contains((name + suffix).toLowerCase(Locale.ROOT))) changes.add("DROP INDEX " + name + suffix);
        }
        // One statement: the table never lacks an index its sweep or purge reads by.
        if (changes.isEmpty()) return Collections.emptyList();
        return Collections.singletonList("ALTER TABLE " + table + " " + String.join(", ", changes));
    }

    @Override
    public List<String> columnProblems(Connection connection, String table) throws SQLException {
        int dot = table.indexOf('.');
        String schema = dot < 0 ? null : table.substring(0, dot);
        String name = dot < 0 ? table : table.substring(dot + 1);
        List<String> problems = new ArrayList<>();
        try (PreparedStatement ps = connection.prepareStatement("SELECT COLUMN_NAME, DATA_TYPE, COLUMN_TYPE, "
                + "CHARACTER_MAXIMUM_LENGTH, COLLATION_NAME FROM information_schema.COLUMNS "
                + "WHERE TABLE_SCHEMA = COALESCE(?, DATABASE()) AND TABLE_NAME = ?")) {
            ps.setString(1, schema);
            ps.setString(2, name);
            try (ResultSet rs = ps.executeQuery()) {
                while (rs.next()) {
                    String column = rs.getString("COLUMN_NAME").toLowerCase(Locale.ROOT);
                    Integer size = BINARY_COLUMNS.get(column);
                    if (size == null) continue;
                    String type = rs.getString("DATA_TYPE").toLowerCase(Locale.ROOT);
                    long length = rs.getLong("CHARACTER_MAXIMUM_LENGTH");
                    if (type.equals("varbinary") && length >= size) continue;
                    String collation = rs.getString("COLLATION_NAME");
                    problems.add("column " + column + " is " + rs.getString("COLUMN_TYPE")
                            + (collation == null ? "" : " with collation " + collation
                                    + ", which compares characters, not bytes (under utf8mb4_bin 'abc ' equals 'abc')")
                            + ", expected VARBINARY(" + size + ")");
                }
            }
        }
        return problems;
    }

    @Override
    public Instant readInstant(ResultSet rs, String column) throws SQLException {
        LocalDateTime value = rs.getObject(column, LocalDateTime.class);
        return value == null ? null : value.toInstant(ZoneOffset.UTC);
    }

    // MariaDB's driver sends SET autocommit to the server at each change: a round trip before a batch's transaction and
    // one after it. Begun by a statement, the transaction costs one round trip instead of those two.
    @Override public String beginStatement() { return "START TRANSACTION"; }

    @Override public String currentSchema() { return "DATABASE()"; }

    // MariaDB and MySQL 5.7 know only this spelling of a shared row lock.
    @Override public String shareLockClause() { return " LOCK IN SHARE MODE"; }
}
