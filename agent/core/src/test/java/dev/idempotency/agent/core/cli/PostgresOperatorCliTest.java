package dev.idempotency.agent.core.cli;

import dev.idempotency.store.testing.TestDatabase;
import org.junit.jupiter.api.BeforeAll;

import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;

/** The command line on the test PostgreSQL. */
class PostgresOperatorCliTest extends OperatorCliContract {
    private static TestDatabase db;

    @BeforeAll
    static void database() {
        db = TestDatabase.postgres();
    }

    @Override protected String url() { return withCredentials(db.url, db.user, db.password); }
    @Override protected String unreachableUrl() { return "jdbc:postgresql://127.0.0.1:1/test?user=postgres"; }
    @Override protected String dropColumn(String column) { return "ALTER TABLE " + table + " DROP COLUMN " + column; }
    @Override protected String dialectName() { return "postgresql"; }

    @Override
    protected String readOnlyUserUrl() throws SQLException {
        String role = table + "_reader";
        try (Connection c = connect(); Statement s = c.createStatement()) {
            s.execute("DROP ROLE IF EXISTS " + role);
            s.execute("CREATE ROLE " + role + " LOGIN PASSWORD 'reader'");
            s.execute("GRANT SELECT ON " + table + ", " + table + "_schema, " + table + "_secret TO " + role);
        }
        String base = db.url.replaceAll("[?&](user|password)=[^&]*", "");
        return base + (base.contains("?") ? "&" : "?") + "user=" + role + "&password=reader";
    }

    @Override
    @org.junit.jupiter.api.AfterEach
    void dropTables() throws SQLException {
        super.dropTables();
        try (Connection c = connect(); Statement s = c.createStatement()) {
            s.execute("DROP ROLE IF EXISTS " + table + "_reader");
            s.execute("DROP TABLE IF EXISTS " + table + " CASCADE");
            s.execute("DROP FUNCTION IF EXISTS " + table + "_vacant(VARCHAR, VARCHAR)");
            s.execute("DROP FUNCTION IF EXISTS " + table + "_partition_seconds()");
        }
    }

    /** The printed partitioned DDL, run as one script (its function bodies hold semicolons), makes a table the store validates. */
    @org.junit.jupiter.api.Test
    void schemaPrintsTheDdlOfATableInTimePartitions() throws SQLException {
        Run run = cli("", "schema", "postgresql", "--table", table, "--partitioning", "hourly");
        org.junit.jupiter.api.Assertions.assertEquals(0, run.exit, run.toString());
        try (Connection c = connect(); Statement s = c.createStatement()) {
            s.execute(run.out);
        }
        dev.idempotency.store.jdbc.JdbcIdempotencyStore validating = store(settings().partitioning(java.time.Duration.ofHours(1))
                .schemaMode(dev.idempotency.store.SchemaMode.VALIDATE));
        org.junit.jupiter.api.Assertions.assertEquals(dev.idempotency.store.Reservation.Outcome.ACQUIRED,
                validating.reserve("s", "k", "fp").outcome());
        Run refused = cli("", "schema", "postgresql", "--partitioning", "7h");
        org.junit.jupiter.api.Assertions.assertNotEquals(0, refused.exit);
        org.junit.jupiter.api.Assertions.assertTrue(refused.toString().contains("divides a day"), refused.toString());
    }

    static String withCredentials(String url, String user, String password) {
        if (user == null) return url;
        return url + (url.contains("?") ? "&" : "?") + "user=" + user + "&password=" + password;
    }
}
