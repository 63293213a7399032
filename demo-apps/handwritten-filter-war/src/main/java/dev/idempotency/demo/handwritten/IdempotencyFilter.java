package dev.idempotency.demo.handwritten;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.sql.Connection;
import java.sql.Driver;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.sql.Timestamp;
import java.util.Collections;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.logging.Level;
import java.util.logging.Logger;
import javax.servlet.Filter;
import javax.servlet.FilterChain;
import javax.servlet.FilterConfig;
import javax.servlet.ServletContext;
import javax.servlet.ServletException;
import javax.servlet.ServletRequest;
import javax.servlet.ServletResponse;
import javax.servlet.http.HttpServletRequest;
import javax.servlet.http.HttpServletResponse;

/**
 * The Idempotency-Key filter a team writes in-house instead of using the agent: the bar the agent's benchmark is
 * measured against (issue 28). A POST or PATCH with an Idempotency-Key header:
 * <ol>
 * <li>has its body buffered and a SHA-256 fingerprint taken of method, URI, query string and body;</li>
 * <li>claims its key with one INSERT in autocommit (PostgreSQL ON CONFLICT DO NOTHING, MariaDB INSERT IGNORE, H2 a
 * plain INSERT whose duplicate key is caught);</li>
 * <li>if the key was new, runs the application on the buffered request and a response whose body is held back; then
 * one UPDATE ... WHERE key = ? AND status = 'IN_FLIGHT' in autocommit stores status, Content-Type and body, and only
 * then does the client get the answer. A 5xx answer or an exception deletes the row instead (the client may retry);</li>
 * <li>if the key existed, one SELECT of its row: the stored answer with "Idempotent-Replayed: true" if completed, 422
 * if the fingerprint differs, 409 with Retry-After while the first request is in flight.</li>
 * </ol>
 * Connections come from a HikariCP pool (10 by default), borrowed per step, never held while the application runs.
 * A scheduled task deletes keys older than 24 hours in batches. Requests without the header, and other methods, pass
 * straight through. What it does not have (and the agent does): leases that free the keys of a crashed server, tenant
 * scopes, JSON canonicalisation, async requests, a memory budget for held bodies, headers other than Content-Type.
 * <p>
 * Settings: context parameters {@code handwritten.idempotency.*} of web.xml, each overridden by the system property
 * of the same name: url (JDBC), user, password, table, pool-size, max-body-bytes, purge-minutes.
 */
public class IdempotencyFilter implements Filter {
    private static final Logger LOG = Logger.getLogger(IdempotencyFilter.class.getName());
    private static final String SETTINGS = "handwritten.idempotency.";
    private static final String KEY_HEADER = "Idempotency-Key";
    private static final int MAX_KEY_LENGTH = 255;
    private static final long RETENTION_MILLIS = TimeUnit.HOURS.toMillis(24);
    private static final int PURGE_BATCH = 1000;
    private static final char[] HEX = "0123456789abcdef".toCharArray();

    private HikariDataSource pool;
    private KeyTable keys;
    private ScheduledExecutorService purger;
    private int maxBodyBytes;

    @Override
    public void init(FilterConfig config) throws ServletException {
        ServletContext context = config.getServletContext();
        String url = setting(context, "url", null);
        if (url == null || url.isEmpty()) throw new ServletException("set " + SETTINGS + "url (a JDBC URL)");
        keys = new KeyTable(url, setting(context, "table", "idempotency_keys"));
        maxBodyBytes = Integer.parseInt(setting(context, "max-body-bytes", "1048576"));

        HikariConfig hikari = new HikariConfig();
        hikari.setPoolName("idempotency-keys");
        hikari.setJdbcUrl(url);
        // Named, not looked up by DriverManager: Tomcat initialises DriverManager before any web application loads.
        hikari.setDriverClassName(keys.database.driverClass);
        String user = setting(context, "user", null);
        if (user != null && !user.isEmpty()) hikari.setUsername(user);
        String password = setting(context, "password", null);
        if (password != null && !password.isEmpty()) hikari.setPassword(password);
        hikari.setMaximumPoolSize(Integer.parseInt(setting(context, "pool-size", "10")));
        pool = new HikariDataSource(hikari);
        try (Connection c = pool.getConnection()) {
            keys.create(c);
        } catch (SQLException e) {
            pool.close();
            throw new ServletException("cannot create the idempotency key table", e);
        }

        long purgeMinutes = Long.parseLong(setting(context, "purge-minutes", "10"));
        purger = Executors.newSingleThreadScheduledExecutor(task -> {
            Thread thread = new Thread(task, "idempotency-key-purge");
            thread.setDaemon(true);
            return thread;
        });
        purger.scheduleWithFixedDelay(this::purge, purgeMinutes, purgeMinutes, TimeUnit.MINUTES);
        LOG.info("idempotency filter on " + keys.database + ", pool of " + hikari.getMaximumPoolSize());
    }

    private static String setting(ServletContext context, String name, String fallback) {
        String value = System.getProperty(SETTINGS + name);
        if (value == null) value = context.getInitParameter(SETTINGS + name);
        return value == null ? fallback : value.trim();
    }

    @Override
    public void doFilter(ServletRequest req, ServletResponse resp, FilterChain chain) throws IOException, ServletException {
        HttpServletRequest request = (HttpServletRequest) req;
        HttpServletResponse response = (HttpServletResponse) resp;
        String key = request.getHeader(KEY_HEADER);
        String method = request.getMethod();
        if (key == null || !("POST".equals(method) || "PATCH".equals(method))) {
            chain.doFilter(request, response);
            return;
        }
        if (key.isEmpty() || key.length() > MAX_KEY_LENGTH) {
            answerError(response, 400, "Idempotency-Key must have 1 to " + MAX_KEY_LENGTH + " characters");
            return;
        }
        byte[] body = readBody(request);
        if (body == null) {
            answerError(response, 413, "request body larger than " + maxBodyBytes + " bytes");
            return;
        }
        String fingerprint = fingerprint(request, body);

        try {
            // A key released between our INSERT and our SELECT is claimed again, a few times at most.
            for (int attempt = 1; ; attempt++) {
                KeyTable.Row row;
                try (Connection c = pool.getConnection()) {
                    if (keys.reserve(c, key, fingerprint)) break;
                    row = keys.find(c, key);
                }
                if (row == null && attempt < 3) continue;
                if (row == null || KeyTable.IN_FLIGHT.equals(row.status)) {
                    response.setHeader("Retry-After", "1");
                    answerError(response, 409, "a request with this Idempotency-Key is in progress");
                } else if (!row.fingerprint.equals(fingerprint)) {
                    answerError(response, 422, "this Idempotency-Key was used with another request");
                } else {
                    replay(response, row);
                }
                return;
            }
        } catch (SQLException e) {
            LOG.log(Level.WARNING, "idempotency key table unavailable", e);
            response.setHeader("Retry-After", "1");
            answerError(response, 503, "idempotency key table unavailable");
            return;
        }

        CapturingResponse captured = new CapturingResponse(response);
        try {
            chain.doFilter(new BufferedRequest(request, body), captured);
        } catch (Throwable e) {
            release(key);
            throw e;
        }
        byte[] answer = captured.body();
        int status = response.getStatus();
        if (status >= 500) {
            release(key);
        } else {
            try (Connection c = pool.getConnection()) {
                if (!keys.complete(c, key, status, response.getContentType(), answer)) {
                    LOG.warning("idempotency key " + key + " was no longer in flight when its answer was stored");
                }
            } catch (SQLException e) {
                // The row stays IN_FLIGHT (retries get 409) until the purge: never run the application twice.
                LOG.log(Level.SEVERE, "cannot store the answer of idempotency key " + key, e);
            }
        }
        captured.send(answer);
    }

    private byte[] readBody(HttpServletRequest request) throws IOException {
        int declared = request.getContentLength();
        if (declared > maxBodyBytes) return null;
        ByteArrayOutputStream body = new ByteArrayOutputStream(declared > 0 ? declared : 1024);
        byte[] chunk = new byte[4096];
        InputStream in = request.getInputStream();
        for (int n; (n = in.read(chunk)) != -1; ) {
            if (body.size() + n > maxBodyBytes) return null;
            body.write(chunk, 0, n);
        }
        return body.toByteArray();
    }

    static String fingerprint(HttpServletRequest request, byte[] body) {
        MessageDigest sha256;
        try {
            sha256 = MessageDigest.getInstance("SHA-256");
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException(e); // every Java platform has SHA-256
        }
        String query = request.getQueryString();
        // NUL between the parts: "/a" + "b=1" and "/ab" + "=1" differ.
        sha256.update(request.getMethod().getBytes(StandardCharsets.UTF_8));
        sha256.update((byte) 0);
        sha256.update(request.getRequestURI().getBytes(StandardCharsets.UTF_8));
        sha256.update((byte) 0);
        if (query != null) sha256.update(query.getBytes(StandardCharsets.UTF_8));
        sha256.update((byte) 0);
        byte[] digest = sha256.digest(body);
        char[] hex = new char[digest.length * 2];
        for (int i = 0; i < digest.length; i++) {
            hex[2 * i] = HEX[(digest[i] >> 4) & 0xf];
            hex[2 * i + 1] = HEX[digest[i] & 0xf];
        }
        return new String(hex);
    }

    private static void replay(HttpServletResponse response, KeyTable.Row row) throws IOException {
        byte[] body = row.body == null ? new byte[0] : row.body;
        response.setStatus(row.responseStatus);
        if (row.contentType != null) response.setContentType(row.contentType);
        response.setHeader("Idempotent-Replayed", "true");
        response.setContentLength(body.length);
        response.getOutputStream().write(body);
    }

    private static void answerError(HttpServletResponse response, int status, String message) throws IOException {
        byte[] body = ("{\"error\":\"" + message + "\"}").getBytes(StandardCharsets.UTF_8);
        response.setStatus(status);
        response.setContentType("application/json");
        response.setContentLength(body.length);
        response.getOutputStream().write(body);
    }

    private void release(String key) {
        try (Connection c = pool.getConnection()) {
            keys.release(c, key);
        } catch (SQLException e) {
            LOG.log(Level.SEVERE, "cannot release idempotency key " + key + "; retries get 409 until the purge", e);
        }
    }

    private void purge() {
        Timestamp before = new Timestamp(System.currentTimeMillis() - RETENTION_MILLIS);
        try (Connection c = pool.getConnection()) {
            int deleted;
            do {
                deleted = keys.purge(c, before, PURGE_BATCH);
            } while (deleted == PURGE_BATCH && !Thread.currentThread().isInterrupted());
        } catch (SQLException e) {
            LOG.log(Level.WARNING, "purge of old idempotency keys failed; next try in the next period", e);
        }
    }

    @Override
    public void destroy() {
        if (purger != null) purger.shutdownNow();
        if (pool != null) pool.close();
        // The drivers came with this WAR: deregister them, or Tomcat reports a leak on undeploy.
        ClassLoader ours = getClass().getClassLoader();
        for (Driver driver : Collections.list(DriverManager.getDrivers())) {
            if (driver.getClass().getClassLoader() == ours) {
                try {
                    DriverManager.deregisterDriver(driver);
                } catch (SQLException e) {
                    LOG.log(Level.FINE, "cannot deregister " + driver, e);
                }
            }
        }
    }
}
