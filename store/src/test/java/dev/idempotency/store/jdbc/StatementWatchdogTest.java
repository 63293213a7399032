package dev.idempotency.store.jdbc;

import dev.idempotency.store.testing.Await;
import dev.idempotency.store.testing.TestDatabase;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.Properties;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The store's own query timeout on PostgreSQL: one thread cancels what outlives its deadline, and nothing else. */
class StatementWatchdogTest {
    private static TestDatabase db;
    private final String name = "watchdog-test-" + java.util.UUID.randomUUID();
    private final StatementWatchdog watchdog = new StatementWatchdog(name);

    @BeforeAll
    static void database() {
        db = TestDatabase.postgres();
    }

    @AfterEach
    void close() {
        watchdog.close();
    }

    @Test
    void cancelsAStatementOnTheServerOnceItOutlivesItsTimeout() throws SQLException {
        try (Connection c = db.connect(new Properties()); Statement s = c.createStatement()) {
            watchdog.watch(s, TimeUnit.MILLISECONDS.toNanos(500));
            long started = System.nanoTime();
            SQLException e = assertThrows(SQLException.class, () -> s.execute("SELECT pg_sleep(30)"));
            long tookMillis = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - started);
            assertEquals("57014", e.getSQLState(), "cancelled on the server: " + e);
            assertTrue(tookMillis >= 500 && tookMillis < 5000, "cancelled after its 500 ms, well before 30 s: " + tookMillis + " ms");
            // The connection is usable afterwards: the cancel ended that statement only.
            try (Statement next = c.createStatement(); ResultSet rs = next.executeQuery("SELECT 1")) {
                assertTrue(rs.next());
            }
        }
    }

    @Test
    void aFinishedStatementPastItsDeadlineDoesNotCancelTheConnectionsNextStatement() throws SQLException {
        try (Connection c = db.connect(new Properties())) {
            Statement finished = c.createStatement();
            watchdog.watch(finished, TimeUnit.MILLISECONDS.toNanos(100));
            try (ResultSet rs = finished.executeQuery("SELECT 1")) {
                assertTrue(rs.next());
            }
            // Left open, so the watchdog reaches its deadline while the next statement runs on the same connection.
            try (Statement next = c.createStatement(); ResultSet rs = next.executeQuery("SELECT pg_sleep(2), 2")) {
                assertTrue(rs.next());
                assertEquals(2, rs.getInt(2));
            }
            assertEquals(0, watchdog.watched(), "the watchdog reached the deadline while the next statement ran");
            finished.close();
        }
    }

    @Test
    void forgetsStatementsOnceClosedAndCancelsNone() throws SQLException {
        try (Connection c = db.connect(new Properties())) {
            for (int i = 0; i < 50; i++) {
                try (Statement s = c.createStatement(); ResultSet rs = s.executeQuery("SELECT " + i)) {
                    watchdog.watch(s, TimeUnit.SECONDS.toNanos(30));
                    assertTrue(rs.next());
                }
            }
            Await.until("closed statements forgotten", Duration.ofSeconds(5), watchdog::watched, n -> n == 0);
            try (Statement s = c.createStatement(); ResultSet rs = s.executeQuery("SELECT pg_sleep(0.3), 3")) {
                assertTrue(rs.next());
                assertEquals(3, rs.getInt(2));
            }
        }
    }

    @Test
    void itsThreadHoldsNoApplicationLoaderAndEndsWithTheStore() throws InterruptedException {
        Thread thread = Thread.getAllStackTraces().keySet().stream().filter(t -> t.getName().equals(name))
                .findFirst().orElseThrow(() -> new AssertionError("no watchdog thread"));
        assertTrue(thread.isDaemon());
        assertEquals(StatementWatchdog.class.getClassLoader(), thread.getContextClassLoader());
        watchdog.close();
        thread.join(5000);
        assertFalse(thread.isAlive(), "the watchdog's thread ends once closed");
    }
}
