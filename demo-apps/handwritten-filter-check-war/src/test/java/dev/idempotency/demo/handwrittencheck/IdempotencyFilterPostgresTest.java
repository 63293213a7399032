package dev.idempotency.demo.handwrittencheck;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.fail;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.atomic.AtomicInteger;
import javax.servlet.FilterChain;
import javax.servlet.ServletException;
import javax.servlet.http.HttpServletRequest;
import javax.servlet.http.HttpServletResponse;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.TestInstance;

/** The filter against a real PostgreSQL, driven through fake request and response objects (no container). */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class IdempotencyFilterPostgresTest {

    private static final String URI = "/shop/ping";

    private String url;
    private String table;
    private IdempotencyFilter filter;

    @BeforeAll
    void start() throws ServletException {
        url = System.getenv("IDEMPOTENCY_TEST_POSTGRES_URL");
        if (url == null || url.isEmpty()) {
            if (Boolean.getBoolean("idempotency.test.require-databases")) {
                fail("IDEMPOTENCY_TEST_POSTGRES_URL is unset and idempotency.test.require-databases is true");
            }
            return; // each test skips itself, so the report counts them as skipped
        }
        table = "hw_check_test_" + UUID.randomUUID().toString().replace("-", "").substring(0, 12);
        filter = newFilter();
    }

    @BeforeEach
    void needsPostgres() {
        Assumptions.assumeTrue(filter != null, "IDEMPOTENCY_TEST_POSTGRES_URL is unset: no PostgreSQL to test against");
    }

    private IdempotencyFilter newFilter() throws ServletException {
        IdempotencyFilter f = new IdempotencyFilter();
        f.init(FakeHttp.filterConfig(Map.of(
                IdempotencyFilter.URL_SETTING, url,
                IdempotencyFilter.TABLE_SETTING, table,
                IdempotencyFilter.POOL_SIZE_SETTING, "2")));
        return f;
    }

    @AfterAll
    void stop() throws SQLException {
        if (filter != null) {
            filter.destroy();
        }
        if (table != null) {
            try (Connection c = DriverManager.getConnection(url); Statement s = c.createStatement()) {
                s.execute("DROP TABLE IF EXISTS " + table);
            }
        }
    }

    /** The application: counts its runs, echoes the body it read, and says which run answered. */
    private static final class App implements FilterChain {
        final AtomicInteger runs = new AtomicInteger();
        volatile int status = 201;

        @Override
        public void doFilter(javax.servlet.ServletRequest request, javax.servlet.ServletResponse response)
                throws IOException {
            int run = runs.incrementAndGet();
            String body = new String(request.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
            HttpServletResponse resp = (HttpServletResponse) response;
            resp.setStatus(status);
            resp.setContentType("application/json;charset=UTF-8");
            resp.getWriter().write("{\"run\":" + run + ",\"echo\":" + body + ",\"note\":\"d\u00e9j\u00e0 vu\"}");
        }
    }

    private static byte[] json(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }

    private FakeHttp.Recorded send(FilterChain app, String method, String key, byte[] body)
            throws IOException, ServletException {
        return send(filter, app, method, key, body);
    }

    private static FakeHttp.Recorded send(IdempotencyFilter f, FilterChain app, String method, String key, byte[] body)
            throws IOException, ServletException {
        FakeHttp.Recorded recorded = new FakeHttp.Recorded();
        HttpServletRequest request = FakeHttp.request(method, URI, key, body);
        f.doFilter(request, recorded.response, app);
        return recorded;
    }

    private static String newKey() {
        return UUID.randomUUID().toString();
    }

    /** status of the key's row and its stored response status, or null if there is no row. */
    private String row(String key) throws SQLException {
        try (Connection c = DriverManager.getConnection(url);
             PreparedStatement ps = c.prepareStatement(
                     "SELECT status, response_status FROM " + table + " WHERE idem_key = ?")) {
            ps.setString(1, key);
            try (ResultSet rs = ps.executeQuery()) {
                return rs.next() ? rs.getString(1) + " " + rs.getInt(2) : null;
            }
        }
    }

    private long rowCount() throws SQLException {
        try (Connection c = DriverManager.getConnection(url); Statement s = c.createStatement();
             ResultSet rs = s.executeQuery("SELECT count(*) FROM " + table)) {
            rs.next();
            return rs.getLong(1);
        }
    }

    @Test
    void newKeyRunsTheApplicationOnceAndStoresItsResponse() throws Exception {
        App app = new App();
        String key = newKey();

        FakeHttp.Recorded first = send(app, "POST", key, json("{\"amount\":100}"));

        assertEquals(1, app.runs.get());
        assertEquals(201, first.status);
        assertEquals("{\"run\":1,\"echo\":{\"amount\":100},\"note\":\"d\u00e9j\u00e0 vu\"}",
                first.text());
        assertEquals("application/json;charset=UTF-8", first.header("Content-Type"));
        assertNull(first.header(IdempotencyFilter.REPLAYED_HEADER));
        assertEquals("COMPLETED 201", row(key));
    }

    @Test
    void retryIsReplayedByteForByteWithoutRunningTheApplication() throws Exception {
        App app = new App();
        String key = newKey();
        FakeHttp.Recorded first = send(app, "POST", key, json("{\"amount\":100}"));

        FakeHttp.Recorded retry = send(app, "POST", key, json("{\"amount\":100}"));

        assertEquals(1, app.runs.get(), "the application must not run again");
        assertEquals(first.status, retry.status);
        assertEquals(first.header("Content-Type"), retry.header("Content-Type"));
        assertArrayEquals(first.bytes(), retry.bytes());
        assertEquals("true", retry.header(IdempotencyFilter.REPLAYED_HEADER));
    }

    @Test
    void sameKeyWithAnotherBodyIs422() throws Exception {
        App app = new App();
        String key = newKey();
        send(app, "POST", key, json("{\"amount\":100}"));

        FakeHttp.Recorded other = send(app, "POST", key, json("{\"amount\":999}"));

        assertEquals(422, other.status);
        assertEquals(1, app.runs.get());
        assertNull(other.header(IdempotencyFilter.REPLAYED_HEADER));
    }

    @Test
    void sameKeyStillInFlightIs409WithRetryAfter() throws Exception {
        String key = newKey();
        AtomicInteger innerRuns = new AtomicInteger();
        FakeHttp.Recorded[] inner = new FakeHttp.Recorded[1];
        // The duplicate arrives while the first request is still inside the application.
        FilterChain app = (request, response) ->
                inner[0] = send(filter, (q, s) -> innerRuns.incrementAndGet(), "POST", key, json("{\"amount\":100}"));

        send(app, "POST", key, json("{\"amount\":100}"));

        assertEquals(409, inner[0].status);
        assertEquals("1", inner[0].header("Retry-After"));
        assertEquals(0, innerRuns.get());
    }

    @Test
    void serverErrorIsNotStoredAndTheRetryRunsAgain() throws Exception {
        App app = new App();
        app.status = 500;
        String key = newKey();

        FakeHttp.Recorded failed = send(app, "POST", key, json("{\"amount\":100}"));

        assertEquals(500, failed.status);
        assertNull(row(key), "a 5xx must release the key");

        app.status = 201;
        FakeHttp.Recorded retry = send(app, "POST", key, json("{\"amount\":100}"));

        assertEquals(2, app.runs.get());
        assertEquals(201, retry.status);
        assertNull(retry.header(IdempotencyFilter.REPLAYED_HEADER));
        assertEquals("COMPLETED 201", row(key));
    }

    @Test
    void exceptionFromTheApplicationReleasesTheKey() throws Exception {
        String key = newKey();
        IllegalStateException boom = new IllegalStateException("boom");

        IllegalStateException thrown = assertThrows(IllegalStateException.class,
                () -> send((q, s) -> { throw boom; }, "POST", key, json("{\"amount\":100}")));

        assertSame(boom, thrown);
        assertNull(row(key));
        App app = new App();
        assertEquals(201, send(app, "POST", key, json("{\"amount\":100}")).status);
        assertEquals(1, app.runs.get());
    }

    @Test
    void requestsWithoutAKeyOrWithAnotherMethodPassStraightThrough() throws Exception {
        App app = new App();
        long rowsBefore = rowCount();

        FakeHttp.Recorded noKey1 = send(app, "POST", null, json("{\"amount\":100}"));
        FakeHttp.Recorded noKey2 = send(app, "POST", null, json("{\"amount\":100}"));
        String key = newKey();
        send(app, "PUT", key, json("{\"amount\":100}"));
        send(app, "PUT", key, json("{\"amount\":100}"));

        assertEquals(4, app.runs.get());
        assertEquals("{\"run\":2,\"echo\":{\"amount\":100},\"note\":\"d\u00e9j\u00e0 vu\"}",
                noKey2.text());
        assertNull(noKey1.header(IdempotencyFilter.REPLAYED_HEADER));
        assertNull(noKey2.header(IdempotencyFilter.REPLAYED_HEADER));
        assertEquals(rowsBefore, rowCount());
    }

    @Test
    void databaseFailureIs503WithoutRunningTheApplication() throws Exception {
        IdempotencyFilter broken = newFilter();
        broken.destroy(); // its pool is closed: every statement now fails
        App app = new App();

        FakeHttp.Recorded answer = send(broken, app, "POST", newKey(), json("{\"amount\":100}"));

        assertEquals(503, answer.status);
        assertEquals(0, app.runs.get());
    }

    @Test
    void purgeDeletesKeysOlderThan24HoursOnly() throws Exception {
        String oldKey = newKey();
        String freshKey = newKey();
        send(new App(), "POST", oldKey, json("{\"amount\":1}"));
        send(new App(), "POST", freshKey, json("{\"amount\":2}"));
        try (Connection c = DriverManager.getConnection(url); PreparedStatement ps = c.prepareStatement(
                "UPDATE " + table + " SET created_at = now() - interval '25 hours' WHERE idem_key = ?")) {
            ps.setString(1, oldKey);
            assertEquals(1, ps.executeUpdate());
        }

        try (IdempotencyStore store = new IdempotencyStore(url, table, 1)) {
            assertEquals(1, store.purgeExpired());
        }

        assertNull(row(oldKey));
        assertEquals("COMPLETED 201", row(freshKey));
    }
}
