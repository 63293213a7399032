package dev.idempotency.demo.transfers;

import javax.naming.InitialContext;
import javax.naming.NamingException;
import javax.sql.DataSource;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The application's own database (the container's DataSource jdbc/transfers) and what a test may watch of it: how far
 * each transfer got. Nothing here knows about idempotency.
 */
public final class Transfers {
    /** The table, named by the system property transfers.table so that test runs do not meet. */
    public static final String TABLE = System.getProperty("transfers.table", "transfers");
    private static final Map<String, String> STAGES = new ConcurrentHashMap<>();

    private Transfers() {
    }

    public static DataSource dataSource() {
        try {
            return (DataSource) new InitialContext().lookup("java:comp/env/jdbc/transfers");
        } catch (NamingException e) {
            throw new IllegalStateException("no DataSource jdbc/transfers", e);
        }
    }

    /** Creates the table at start-up (DDL inside a request would be one more write to watch). */
    static void ensureTable() throws SQLException {
        try (Connection c = dataSource().getConnection(); Statement s = c.createStatement()) {
            s.execute("CREATE TABLE IF NOT EXISTS " + TABLE + " (transfer_id VARCHAR(64) NOT NULL PRIMARY KEY, amount BIGINT NOT NULL, via VARCHAR(16) NOT NULL)");
        }
    }

    static void insert(Connection c, String transfer, long amount, String via) throws SQLException {
        try (PreparedStatement ps = c.prepareStatement("INSERT INTO " + TABLE + " (transfer_id, amount, via) VALUES (?, ?, ?)")) {
            ps.setString(1, transfer);
            ps.setLong(2, amount);
            ps.setString(3, via);
            ps.executeUpdate();
        }
    }

    static void stage(String transfer, String stage) {
        STAGES.put(transfer, stage);
    }

    static String stageOf(String transfer) {
        return STAGES.getOrDefault(transfer, "none");
    }

    /** Waits as long as the request asks (a header), to give a test a window: a crash, a duplicate. */
    static void pause(String millis) {
        if (millis == null) return;
        try {
            Thread.sleep(Long.parseLong(millis));
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    /** The transfer's id and amount from a body like {"transfer":"t-1","amount":100}. */
    static String field(String body, String name) {
        java.util.regex.Matcher m = java.util.regex.Pattern.compile("\"" + name + "\"\\s*:\\s*\"?([A-Za-z0-9_-]+)\"?").matcher(body);
        if (!m.find()) throw new IllegalArgumentException("no " + name + " in " + body);
        return m.group(1);
    }

    /** A whole stream as UTF-8 text (Java 8 has no readAllBytes). */
    static String text(java.io.InputStream in) throws java.io.IOException {
        java.io.ByteArrayOutputStream out = new java.io.ByteArrayOutputStream();
        byte[] buffer = new byte[4096];
        for (int n; (n = in.read(buffer)) > 0; ) out.write(buffer, 0, n);
        return new String(out.toByteArray(), java.nio.charset.StandardCharsets.UTF_8);
    }
}
