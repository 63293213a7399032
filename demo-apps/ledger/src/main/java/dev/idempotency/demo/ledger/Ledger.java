package dev.idempotency.demo.ledger;

import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;

/**
 * A demo application's own database: every side effect is a row, so a test can count exactly how often the
 * application ran. It lives in a file (system property payments.db) so counts survive a server crash and restart.
 * Shared by every demo application; none of them knows anything about idempotency.
 */
public final class Ledger {
    private static final String URL = "jdbc:h2:file:" + System.getProperty("payments.db",
            System.getProperty("java.io.tmpdir") + "/payments-demo") + ";DB_CLOSE_ON_EXIT=FALSE";

    static {
        try {
            Class.forName("org.h2.Driver"); // the way legacy code registers its driver inside a WAR
        } catch (ClassNotFoundException e) {
            throw new ExceptionInInitializerError(e);
        }
        try (Connection c = connect(); Statement s = c.createStatement()) {
            s.execute("CREATE TABLE IF NOT EXISTS side_effects (id BIGINT AUTO_INCREMENT PRIMARY KEY, kind VARCHAR(40) NOT NULL,"
                    + " amount BIGINT, currency VARCHAR(8), created_at TIMESTAMP DEFAULT CURRENT_TIMESTAMP)");
        } catch (SQLException e) {
            throw new ExceptionInInitializerError(e);
        }
    }

    private Ledger() {
    }

    private static Connection connect() throws SQLException {
        return DriverManager.getConnection(URL, "sa", "");
    }

    /** Records one side effect and returns its id. */
    public static long record(String kind, long amount, String currency) {
        try (Connection c = connect();
             PreparedStatement ps = c.prepareStatement("INSERT INTO side_effects (kind, amount, currency) VALUES (?, ?, ?)",
                     Statement.RETURN_GENERATED_KEYS)) {
            ps.setString(1, kind);
            ps.setLong(2, amount);
            ps.setString(3, currency);
            ps.executeUpdate();
            try (ResultSet keys = ps.getGeneratedKeys()) {
                keys.next();
                return keys.getLong(1);
            }
        } catch (SQLException e) {
            throw new IllegalStateException("ledger unavailable", e);
        }
    }

    public static long count(String kind) {
        try (Connection c = connect(); PreparedStatement ps = c.prepareStatement("SELECT COUNT(*) FROM side_effects WHERE kind = ?")) {
            ps.setString(1, kind);
            try (ResultSet rs = ps.executeQuery()) {
                rs.next();
                return rs.getLong(1);
            }
        } catch (SQLException e) {
            throw new IllegalStateException("ledger unavailable", e);
        }
    }
}
