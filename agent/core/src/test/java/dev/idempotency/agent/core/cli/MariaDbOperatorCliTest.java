package dev.idempotency.agent.core.cli;

import dev.idempotency.store.testing.TestDatabase;
import org.junit.jupiter.api.BeforeAll;

import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;

/** The command line on the test MariaDB. */
class MariaDbOperatorCliTest extends OperatorCliContract {
    private static TestDatabase db;

    @BeforeAll
    static void database() {
        db = TestDatabase.mariadb();
    }

    @Override protected String url() { return PostgresOperatorCliTest.withCredentials(db.url, db.user, db.password); }
    @Override protected String unreachableUrl() { return "jdbc:mariadb://127.0.0.1:1/test?user=root"; }
    @Override protected String dropColumn(String column) { return "ALTER TABLE " + table + " DROP COLUMN " + column; }
    @Override protected String dialectName() { return "mariadb"; }

    @Override
    protected String readOnlyUserUrl() throws SQLException {
        String user = table.substring(0, Math.min(table.length(), 24)) + "_r";
        try (Connection c = connect(); Statement s = c.createStatement()) {
            s.execute("DROP USER IF EXISTS '" + user + "'@'%'");
            s.execute("CREATE USER '" + user + "'@'%' IDENTIFIED BY 'reader'");
            s.execute("GRANT SELECT ON " + table + " TO '" + user + "'@'%'");
            s.execute("GRANT SELECT ON " + table + "_schema TO '" + user + "'@'%'");
            s.execute("GRANT SELECT ON " + table + "_secret TO '" + user + "'@'%'");
        }
        String base = db.url.replaceAll("[?&](user|password)=[^&]*", "");
        return base + (base.contains("?") ? "&" : "?") + "user=" + user + "&password=reader";
    }

    @Override
    @org.junit.jupiter.api.AfterEach
    void dropTables() throws SQLException {
        super.dropTables();
        try (Connection c = connect(); Statement s = c.createStatement()) {
            s.execute("DROP USER IF EXISTS '" + table.substring(0, Math.min(table.length(), 24)) + "_r'@'%'");
        }
    }
}
