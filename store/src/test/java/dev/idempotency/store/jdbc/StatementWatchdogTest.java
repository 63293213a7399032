package dev.idempotency.store.jdbc;

import dev.idempotency.store.testing.Await;
import dev.idempotency.store.testing.TestDatabase;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.lang.reflect.Proxy;
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
            try (ResultSet rs = finished.executeQuery("SELECT 1")) {
                assertTrue(rs.next());
            }
            watchdog.watch(finished, TimeUnit.MILLISECONDS.toNanos(100));
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
    void aStatementThatThrowsErrorsDoesNotStopTheCancelsOfOthers() throws SQLException {
        Statement broken = (Statement) Proxy.newProxyInstance(getClass().getClassLoader(), new Class<?>[] {Statement.class},
                (proxy, method, args) -> {
                    if (method.getName().equals("hashCode")) return System.identityHashCode(proxy);
                    if (method.getName().equals("equals")) return proxy == args[0];
                    throw new OutOfMemoryError("made up: " + method.getName());
                });
        watchdog.watch(broken, TimeUnit.MILLISECONDS.toNanos(50));
        Await.until("the broken statement's deadline handled", Duration.ofSeconds(5), watchdog::watched, n -> n == 0);
        assertTrue(watchdogThread().isAlive(), "the watchdog outlives what a statement throws");
        assertCancelledAfter(500);
    }

    @Test
    void anInterruptNeitherStopsNorSpinsIt() throws Exception {
        Thread thread = watchdogThread();
        thread.interrupt();
        ThreadMXBean threads = ManagementFactory.getThreadMXBean();
        long before = threads.getThreadCpuTime(thread.getId());
        long windowStart = System.nanoTime();
        Await.until("half a second to pass", Duration.ofSeconds(5), () -> System.nanoTime() - windowStart,
                elapsed -> elapsed >= TimeUnit.MILLISECONDS.toNanos(500));
        long usedMillis = TimeUnit.NANOSECONDS.toMillis(threads.getThreadCpuTime(thread.getId()) - before);
        assertTrue(usedMillis < 100, "an idle watchdog sleeps after an interrupt; it used " + usedMillis + " ms of CPU in 0.5 s");
        assertCancelledAfter(500);
    }

    @Test
    void itsThreadHoldsNoApplicationLoaderAndEndsWithTheStore() throws InterruptedException {
        Thread thread = watchdogThread();
        assertTrue(thread.isDaemon());
        assertEquals(StatementWatchdog.class.getClassLoader(), thread.getContextClassLoader());
        watchdog.close();
        thread.join(5000);
        assertFalse(thread.isAlive(), "the watchdog's thread ends once closed");
    }

    @Test
    void withItsThreadGoneTheDriverTimesTheStatementInstead() throws Exception {
        Thread thread = watchdogThread();
        watchdog.close();
        thread.join(5000);
        assertFalse(thread.isAlive());
        try (Connection c = db.connect(new Properties()); Statement s = c.createStatement()) {
            watchdog.watch(s, TimeUnit.MILLISECONDS.toNanos(1500));
            assertEquals(2, s.getQueryTimeout(), "the driver's own timeout, in whole seconds rounded up");
            assertEquals(0, watchdog.watched());
        }
    }

    private Thread watchdogThread() {
        return Thread.getAllStackTraces().keySet().stream().filter(t -> t.getName().equals(name))
                .findFirst().orElseThrow(() -> new AssertionError("no watchdog thread"));
    }

    /** A statement of 30 s watched with {@code timeoutMillis} is cancelled on the server soon after. */
    private void assertCancelledAfter(long timeoutMillis) throws SQLException {
        try (Connection c = db.connect(new Properties()); Statement s = c.createStatement()) {
            watchdog.watch(s, TimeUnit.MILLISECONDS.toNanos(timeoutMillis));
            assertEquals(0, s.getQueryTimeout(), "cancelled by the watchdog, not by the driver's timer");
            long started = System.nanoTime();
            SQLException e = assertThrows(SQLException.class, () -> s.execute("SELECT pg_sleep(30)"));
            long tookMillis = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - started);
            assertEquals("57014", e.getSQLState(), "cancelled on the server: " + e);
            assertTrue(tookMillis < 5000, "cancelled soon after its " + timeoutMillis + " ms, well before 30 s: " + tookMillis + " ms");
        }
    }
}
