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
        }
    }

    static String withCredentials(String url, String user, String password) {
        if (user == null) return url;
        return url + (url.contains("?") ? "&" : "?") + "user=" + user + "&password=" + password;
    }
}
