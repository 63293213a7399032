package dev.idempotency.store.jdbc;

import dev.idempotency.store.jdbc.dialect.Dialect;

import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;

/**
 * Tries each kind of statement the store runs, each in its own transaction that is rolled back, so that the probe
 * leaves nothing behind and one refusal (which aborts a PostgreSQL transaction) does not hide the next.
 */
final class PrivilegeProbe {
    private static final String PROBE_SCOPE = "idempotency-doctor-probe";

    private PrivilegeProbe() {
    }

    static boolean tableReadable(Connection c, String table) throws SQLException {
        List<String> problems = new ArrayList<>();
        probe(c, problems, "read " + table, "SELECT COUNT(*) FROM " + table + " WHERE 1 = 0");
        return problems.isEmpty();
    }

    static List<String> problems(Connection c, Dialect dialect, String table, boolean dml, boolean ddl) throws SQLException {
        List<String> problems = new ArrayList<>();
        if (dml) addDmlProblems(c, dialect, table, problems);
        if (ddl) {
            // A name of its own for every probe: PostgreSQL rolls DDL back, MariaDB and H2 commit it at once, so two
            // doctors at a time must not collide, and a table left behind (no right to drop) is named in the answer.
            String scratch = table + "_doctor_" + Long.toHexString(System.nanoTime() & 0xffffffL);
            createAndDrop(c, problems, scratch);
        }
        return problems;
    }

    private static void addDmlProblems(Connection c, Dialect dialect, String table, List<String> problems) throws SQLException {
        String now = dialect.now();
        String byProbe = " WHERE scope = '" + PROBE_SCOPE + "' AND idem_key = 'probe'";
        probe(c, problems, "read " + table, "SELECT COUNT(*) FROM " + table + byProbe);
        probe(c, problems, "insert into " + table, "INSERT INTO " + table
                + " (scope, idem_key, fingerprint, status, attempts, created_at, updated_at, expires_at) VALUES ('"
                + PROBE_SCOPE + "', 'probe', 'probe', 'RETRYABLE', 1, " + now + ", " + now + ", " + now + ")");
        probe(c, problems, "update " + table, "UPDATE " + table + " SET attempts = attempts + 1" + byProbe);
        probe(c, problems, "delete from " + table, "DELETE FROM " + table + byProbe);
        probe(c, problems, "read " + table + "_secret", "SELECT COUNT(*) FROM " + table + "_secret");
    }

    private static void createAndDrop(Connection c, List<String> problems, String scratch) throws SQLException {
        boolean autoCommit = c.getAutoCommit();
        c.setAutoCommit(false);
        String step = "create tables (schema mode create needs it)";
        try (Statement statement = c.createStatement()) {
            statement.execute("CREATE TABLE " + scratch + " (id INTEGER)");
            step = "drop the probe table " + scratch + " (drop it by hand)";
            statement.execute("DROP TABLE " + scratch);
        } catch (SQLException e) {
            if (Failures.unavailable(e)) throw e;
            problems.add("cannot " + step + ": " + e.getMessage().trim());
        } finally {
            c.rollback();
            c.setAutoCommit(autoCommit);
        }
    }

    private static void probe(Connection c, List<String> problems, String what, String... statements) throws SQLException {
        boolean autoCommit = c.getAutoCommit();
        c.setAutoCommit(false);
        try {
            for (String sql : statements) {
                try (Statement statement = c.createStatement()) {
                    statement.execute(sql);
                }
            }
        } catch (SQLException e) {
            if (Failures.unavailable(e)) throw e;
            problems.add("cannot " + what + ": " + e.getMessage().trim());
        } finally {
            c.rollback();
            c.setAutoCommit(autoCommit);
        }
    }
}
