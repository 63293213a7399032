package dev.idempotency.store.jdbc;

import dev.idempotency.store.SchemaMode;
import dev.idempotency.store.StoreConfigurationException;
import dev.idempotency.store.StoreUnavailableException;
import dev.idempotency.store.jdbc.dialect.Dialect;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.ResultSetMetaData;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Set;

/** Creates the table from the shipped DDL, or checks that an existing one is usable and says precisely what is not. */
public final class SchemaManager {

    /**
     * The schema version this release writes and reads. 2: scopes, keys, fingerprints, tokens and statuses compare
     * byte for byte on MariaDB/MySQL (VARBINARY), and the {@code <table>_secret} table holds the installation secret.
     */
    public static final int SCHEMA_VERSION = 2;

    /**
     * PostgreSQL: the share of each page of the key table that inserts fill. A completion makes the row longer (the
     * response); it is a heap-only update only when the new version fits on the row's page, and a page filled by
     * inserts while the request ran would have no room left. 65 rather than 70: with 70 about one completion in ten
     * missed its page in the benchmark, all at 32 and 128 connections, where completions share batches
     * (demo-apps/bench/MEASUREMENTS.md, 2026-11-29).
     */
    static final int KEY_TABLE_FILLFACTOR = 65;

    static final List<String> COLUMNS = Arrays.asList("scope", "idem_key", "fingerprint", "status", "owner_token",
            "lease_expires_at", "response_status", "response_headers", "response_body", "attempts", "created_at",
            "updated_at", "expires_at");

    private SchemaManager() {
    }

    /** Path of the shipped DDL for a dialect, on the class path. */
    public static String ddlResource(Dialect dialect) {
        return "dev/idempotency/store/schema/" + dialect.name() + ".sql";
    }

    /** The shipped DDL for a dialect with the table name filled in, as separate statements. */
    public static List<String> ddlStatements(Dialect dialect, String table) {
        return statements(ddlResource(dialect), table, null);
    }

    /**
     * The shipped DDL of a key table in time partitions {@code width} wide (PostgreSQL), as separate statements: the
     * functions partitions need (the partition column's default calls one), then the tables, the key table partitioned.
     */
    public static List<String> ddlStatements(Dialect dialect, String table, java.time.Duration width) {
        if (width == null) return ddlStatements(dialect, table);
        List<String> statements = new ArrayList<>(statements(partitionedDdlResource(dialect), table, width));
        statements.addAll(statements(ddlResource(dialect), table, width));
        return statements;
    }

    /** Path of the DDL that creates the key table in time partitions, for a dialect that has them. */
    public static String partitionedDdlResource(Dialect dialect) {
        if (!dialect.partitionsByTime()) {
            throw new StoreConfigurationException("the " + dialect.name() + " store has no time partitioning (PostgreSQL only)");
        }
        return "dev/idempotency/store/schema/" + dialect.name() + "-partitioned.sql";
    }

    private static List<String> statements(String resource, String table, java.time.Duration width) {
        String script = readResource(resource);
        String name = table.contains(".") ? table.substring(table.indexOf('.') + 1) : table;
        String schemaPrefix = table.substring(0, table.length() - name.length()); // "schema." or empty: where its indexes are
        script = script.replace("${table}", table).replace("${name}", name).replace("${schemaPrefix}", schemaPrefix);
        String seconds = width == null ? "" : String.valueOf(width.getSeconds());
        script = script.replace("${partitionSeconds}", seconds)
                .replace("${partitionColumn}", width == null ? "" : "\n    part_at          TIMESTAMPTZ  NOT NULL DEFAULT "
                        + table + "_partition_start(clock_timestamp()),")
                .replace("${partitionKey}", width == null ? "" : ", part_at")
                .replace("${partitionBy}", width == null ? "" : " PARTITION BY RANGE (part_at)")
                // A partitioned table has no pages of its own: its partitions are made with the fill factor.
                .replace("${fillfactor}", width == null ? "ALTER TABLE " + table + " SET (fillfactor = " + KEY_TABLE_FILLFACTOR + ");" : "");
        List<String> statements = new ArrayList<>();
        StringBuilder current = new StringBuilder();
        boolean inBody = false; // inside a $$-quoted function body, whose own statements end in ';' too
        for (String line : script.split("\n")) {
            String trimmed = line.trim();
            if (!inBody && (trimmed.startsWith("--") || trimmed.isEmpty())) continue;
            current.append(line).append('\n');
            if (line.split("\\$\\$", -1).length % 2 == 0) inBody = !inBody;
            if (!inBody && trimmed.endsWith(";")) {
                String statement = current.toString().trim();
                statements.add(statement.substring(0, statement.length() - 1));
                current.setLength(0);
            }
        }
        return statements;
    }

    /**
     * Creates or validates per {@code mode}; {@code effects}: the effect table must be usable too; {@code partitioning}:
     * the width of the key table's time partitions, or null for one plain table; {@code limit} and {@code timeoutNanos}:
     * how the store holds a statement to its query timeout, applied to the commit of the DDL's transaction.
     */
    static void apply(Connection connection, Dialect dialect, String table, SchemaMode mode, boolean effects,
                      java.time.Duration partitioning, Dialect.TimeLimit limit, long timeoutNanos) throws SQLException {
        if (mode == SchemaMode.NONE) return;
        if (mode == SchemaMode.CREATE) create(connection, dialect, table, partitioning, limit, timeoutNanos);
        validate(connection, dialect, table, partitioning);
        if (effects) validateEffects(connection, dialect, table);
    }

    private static void validateEffects(Connection connection, Dialect dialect, String table) throws SQLException {
        try (Statement statement = connection.createStatement();
             ResultSet rs = statement.executeQuery("SELECT scope, idem_key, owner_token, mark_id, kind, detail, marked_at FROM "
                     + table + "_effects WHERE 1 = 0")) {
            rs.next();
        } catch (SQLException e) {
            if (Failures.unavailable(e)) throw e;
            throw new StoreConfigurationException("effect table '" + table + "_effects', which on-expired-lease=transaction needs, "
                    + "is not usable: " + e.getMessage() + "; create it with " + ddlResource(dialect) + " (or use schema mode create)", e);
        }
    }

    private static final int CREATE_ATTEMPTS = 3;
    private static final Object CREATE_LOCK = new Object();

    private static void create(Connection connection, Dialect dialect, String table, java.time.Duration partitioning,
                               Dialect.TimeLimit limit, long timeoutNanos) throws SQLException {
        // Nodes starting at once race on CREATE ... IF NOT EXISTS; within one JVM the lock orders them, across JVMs a
        // later attempt finds what the winner created.
        synchronized (CREATE_LOCK) {
            for (int attempt = 1; ; attempt++) {
                try {
                    runDdl(connection, dialect, table, partitioning, limit, timeoutNanos);
                    return;
                } catch (SQLException e) {
                    if (Failures.unavailable(e)) throw e;
                    if (attempt == CREATE_ATTEMPTS && Failures.lockNotGranted(e)) {
                        // Another node is creating or upgrading the table (a rolling start, say): busy, not misconfigured.
                        throw new StoreUnavailableException("idempotency store busy: table '" + table + "' is being changed by"
                                + " another node (its schema lock, or a lock its DDL needs, was not granted in " + CREATE_ATTEMPTS
                                + " attempts): " + e.getMessage(), e);
                    }
                    if (attempt == CREATE_ATTEMPTS) {
                        throw new StoreConfigurationException("cannot create idempotency table '" + table + "' (" + e.getMessage()
                                + "); create it with " + ddlResource(dialect) + " and use schema mode validate", e);
                    }
                }
            }
        }
    }

    private static void runDdl(Connection connection, Dialect dialect, String table, java.time.Duration partitioning,
                               Dialect.TimeLimit limit, long timeoutNanos) throws SQLException {
        // Read in autocommit, before the DDL transaction: a failed query would abort a PostgreSQL transaction. The
        // version only ever grows, so a node racing another at worst repeats an upgrade, whose statements are
        // idempotent.
        int installed = installedVersion(connection, table);
        List<String> upgrade = new ArrayList<>();
        for (int from = installed; from > 0 && from < SCHEMA_VERSION; from++) { // absent (-1) or empty (0): nothing to upgrade
            String resource = dialect.upgradeResource(from);
            if (resource != null) upgrade.addAll(statements(resource, table, null));
        }
        String lock = dialect.schemaLockStatement(table);
        if (lock == null) {
            applyDdl(connection, dialect, table, partitioning, upgrade, null);
            return;
        }
        DdlTransaction.run(connection, () -> {
            applyDdl(connection, dialect, table, partitioning, upgrade, lock);
            // Cancelled at the query timeout: a commit waiting for an absent synchronous standby would otherwise hold
            // its server process, and the schema lock every starting node waits for, until the standby returns.
            dialect.commit(connection, limit, timeoutNanos);
        });
    }

    /** The upgrades and the shipped DDL, after taking {@code lock} (null: the database has no such lock). */
    private static void applyDdl(Connection connection, Dialect dialect, String table, java.time.Duration partitioning,
                                 List<String> upgrade, String lock) throws SQLException {
        try (Statement statement = connection.createStatement()) {
            if (lock != null) statement.execute(lock);
            // Under the lock, before any DDL: the partitioned DDL replaces the width function, which must never change
            // under existing keys, and a node starting with another width must not slip in between check and DDL.
            requireLayout(connection, dialect, table, partitioning, true);
            // Upgrades first: the shipped DDL ends by recording the new version, which must not precede them.
            for (String sql : upgrade) statement.execute(sql);
            for (String sql : ddlStatements(dialect, table, partitioning)) statement.execute(sql);
            for (String sql : dialect.indexChanges(connection, table)) statement.execute(sql);
        }
    }

    /** The highest version in the version table; 0 when it is empty, -1 when it cannot be read (absent). */
    private static int installedVersion(Connection connection, String table) throws SQLException {
        try (Statement statement = connection.createStatement();
             ResultSet rs = statement.executeQuery("SELECT MAX(version) FROM " + table + "_schema")) {
            return rs.next() ? rs.getInt(1) : 0;
        } catch (SQLException e) {
            if (Failures.unavailable(e)) throw e;
            return -1;
        }
    }

    /**
     * The key table is laid out as {@code partitioning} says: in time partitions of that width, or (null) one plain
     * table. {@code absentIsFine}: a table that does not exist yet passes (it is about to be created).
     */
    private static void requireLayout(Connection connection, Dialect dialect, String table, java.time.Duration partitioning,
                                      boolean absentIsFine) throws SQLException {
        if (!dialect.partitionsByTime()) return;
        java.time.Duration actual;
        boolean exists;
        try {
            exists = TimePartitions.exists(connection, table);
            actual = TimePartitions.widthOf(connection, table);
        } catch (SQLException e) {
            if (Failures.unavailable(e)) throw e;
            throw new StoreConfigurationException("cannot tell how idempotency table '" + table + "' is partitioned: " + e.getMessage(), e);
        }
        if (!exists && absentIsFine) return;
        if (partitioning == null && actual != null) {
            throw new StoreConfigurationException("idempotency table '" + table + "' is in time partitions"
                    + (actual.isZero() ? " not made by the store" : " " + actual.getSeconds() + "s wide")
                    + "; set idempotency.store.partitioning to " + (actual.isZero() ? "the width it was made with" : actual.getSeconds() + "s")
                    + ", or use another table");
        }
        if (partitioning != null && actual == null && exists) {
            throw new StoreConfigurationException("idempotency table '" + table + "' is one plain table, and partitioning ("
                    + partitioning.getSeconds() + "s) applies only to a table created in partitions; set idempotency.store.table to a "
                    + "new table (the store creates it in partitions, or apply " + partitionedDdlResource(dialect) + " then "
                    + ddlResource(dialect) + "), or leave partitioning unset");
        }
        if (partitioning != null && actual != null && !actual.equals(partitioning)) {
            throw new StoreConfigurationException("idempotency table '" + table + "' is in time partitions "
                    + (actual.isZero() ? "not made by the store (it needs RANGE (part_at) and the functions " + table
                    + "_partition_seconds, _partition_start and _vacant of " + partitionedDdlResource(dialect) + ")"
                    : actual.getSeconds() + "s wide") + ", not " + partitioning.getSeconds()
                    + "s; every node must use the width the table was made with");
        }
    }

    static void validate(Connection connection, Dialect dialect, String table, java.time.Duration partitioning) throws SQLException {
        Set<String> present = new LinkedHashSet<>();
        try (Statement statement = connection.createStatement();
             ResultSet rs = statement.executeQuery("SELECT * FROM " + table + " WHERE 1 = 0")) {
            ResultSetMetaData meta = rs.getMetaData();
            for (int i = 1; i <= meta.getColumnCount(); i++) present.add(meta.getColumnLabel(i).toLowerCase(Locale.ROOT));
        } catch (SQLException e) {
            if (Failures.unavailable(e)) throw e;
            throw new StoreConfigurationException("idempotency table '" + table + "' is not usable: " + e.getMessage()
                    + "; create it with " + ddlResource(dialect) + " (or use schema mode create)", e);
        }
        List<String> missing = new ArrayList<>();
        for (String column : COLUMNS) if (!present.contains(column)) missing.add(column);
        if (!missing.isEmpty()) {
            throw new StoreConfigurationException("idempotency table '" + table + "' lacks columns " + missing
                    + "; its definition is in " + ddlResource(dialect));
        }
        int version;
        try (Statement statement = connection.createStatement();
             ResultSet rs = statement.executeQuery("SELECT MAX(version) FROM " + table + "_schema")) {
            rs.next();
            version = rs.getInt(1);
        } catch (SQLException e) {
            if (Failures.unavailable(e)) throw e;
            throw new StoreConfigurationException("schema version table '" + table + "_schema' is not usable: " + e.getMessage()
                    + "; create it with " + ddlResource(dialect), e);
        }
        if (version == 0) {
            throw new StoreConfigurationException("schema version table '" + table + "_schema' is empty; insert version "
                    + SCHEMA_VERSION + " as " + ddlResource(dialect) + " does");
        }
        if (version > SCHEMA_VERSION) {
            throw new StoreConfigurationException("idempotency table '" + table + "' has schema version " + version
                    + ", newer than this release understands (" + SCHEMA_VERSION + "); upgrade the agent");
        }
        List<String> problems = dialect.columnProblems(connection, table);
        if (version < SCHEMA_VERSION) {
            StringBuilder message = new StringBuilder("idempotency table '" + table + "' has schema version " + version
                    + "; this release needs version " + SCHEMA_VERSION);
            for (String problem : problems) message.append("; ").append(problem);
            message.append("; version 2 also adds the table '").append(table).append("_secret'; run ");
            for (int from = version; from < SCHEMA_VERSION; from++) {
                String upgrade = dialect.upgradeResource(from);
                if (upgrade != null) message.append(upgrade).append(", then ");
            }
            message.append(ddlResource(dialect)).append(" (it adds what is missing and records version ").append(SCHEMA_VERSION)
                    .append("), or use schema mode create, which upgrades the table in place");
            throw new StoreConfigurationException(message.toString());
        }
        if (!problems.isEmpty()) {
            String upgrade = dialect.upgradeResource(1);
            throw new StoreConfigurationException("idempotency table '" + table + "' records schema version " + version
                    + " but its columns do not compare byte for byte: " + String.join("; ", problems)
                    + (upgrade == null ? "" : "; run " + upgrade));
        }
        try (Statement statement = connection.createStatement();
             ResultSet rs = statement.executeQuery("SELECT id, secret FROM " + table + "_secret WHERE 1 = 0")) {
            rs.next();
        } catch (SQLException e) {
            if (Failures.unavailable(e)) throw e;
            throw new StoreConfigurationException("installation secret table '" + table + "_secret' is not usable: "
                    + e.getMessage() + "; create it with " + ddlResource(dialect) + " (or use schema mode create)", e);
        }
        requireLayout(connection, dialect, table, partitioning, false);
    }

    private static String readResource(String path) {
        try (InputStream in = SchemaManager.class.getClassLoader().getResourceAsStream(path)) {
            if (in == null) throw new IllegalStateException("missing resource " + path);
            ByteArrayOutputStream out = new ByteArrayOutputStream();
            byte[] buffer = new byte[4096];
            for (int n; (n = in.read(buffer)) > 0; ) out.write(buffer, 0, n);
            return new String(out.toByteArray(), StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new IllegalStateException("cannot read " + path, e);
        }
    }
}
