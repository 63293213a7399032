package dev.idempotency.demo.handwrittencheck;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.sql.SQLException;
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
 * Makes POST and PATCH requests that carry an {@code Idempotency-Key} header run at most once: the first request with
 * a key reserves it, runs the application and stores the response; a retry with the same key and the same request
 * gets the stored response back instead of running the application again.
 *
 * <p>It fails closed: if the database cannot be reached before the application runs, the request is answered 503
 * rather than run without protection.
 */
public final class IdempotencyFilter implements Filter {

    static final String KEY_HEADER = "Idempotency-Key";
    static final String REPLAYED_HEADER = "Idempotent-Replayed";

    static final String URL_SETTING = "handwritten.idempotency.url";
    static final String TABLE_SETTING = "handwritten.idempotency.table";
    static final String POOL_SIZE_SETTING = "handwritten.idempotency.pool-size";

    private static final Logger LOG = Logger.getLogger(IdempotencyFilter.class.getName());
    private static final long PURGE_EVERY_MINUTES = 5;

    private IdempotencyStore store;
    private ScheduledExecutorService purger;

    @Override
    public void init(FilterConfig config) throws ServletException {
        ServletContext context = config.getServletContext();
        String url = setting(context, URL_SETTING, null);
        if (url == null) {
            throw new ServletException(URL_SETTING + " is not set (system property or context parameter)");
        }
        String table = setting(context, TABLE_SETTING, "idempotency_keys_check");
        int poolSize = Integer.parseInt(setting(context, POOL_SIZE_SETTING, "10"));
        try {
            store = new IdempotencyStore(url, table, poolSize);
        } catch (SQLException | RuntimeException e) {
            throw new ServletException("cannot open the idempotency table " + table, e);
        }
        purger = Executors.newSingleThreadScheduledExecutor(task -> {
            Thread thread = new Thread(task, "handwritten-idempotency-purge");
            thread.setDaemon(true);
            return thread;
        });
        purger.scheduleWithFixedDelay(this::purge, PURGE_EVERY_MINUTES, PURGE_EVERY_MINUTES, TimeUnit.MINUTES);
    }

    /** A system property wins over the context parameter, so a deployment can be pointed elsewhere unchanged. */
    private static String setting(ServletContext context, String name, String fallback) {
        String value = System.getProperty(name);
        if (value == null || value.isEmpty()) {
            value = context.getInitParameter(name);
        }
        return value == null || value.isEmpty() ? fallback : value.trim();
    }

    private void purge() {
        // Caught here: an exception escaping a scheduled task would cancel every later run.
        try {
            int deleted = store.purgeExpired();
            if (deleted > 0) {
                LOG.fine(() -> "purged " + deleted + " idempotency keys older than 24 hours");
            }
        } catch (SQLException | RuntimeException e) {
            LOG.log(Level.WARNING, "idempotency purge failed; the next run tries again", e);
        }
    }

    @Override
    public void doFilter(ServletRequest request, ServletResponse response, FilterChain chain)
            throws IOException, ServletException {
        HttpServletRequest req = (HttpServletRequest) request;
        HttpServletResponse resp = (HttpServletResponse) response;
        String key = req.getHeader(KEY_HEADER);
        String method = req.getMethod();
        if (key == null || key.isEmpty() || !("POST".equals(method) || "PATCH".equals(method))) {
            chain.doFilter(request, response);
            return;
        }

        BufferedRequest buffered = new BufferedRequest(req);
        byte[] fingerprint = Fingerprint.of(method, req.getRequestURI(), req.getQueryString(), buffered.body());

        boolean reserved;
        IdempotencyStore.Row existing = null;
        try {
            reserved = store.reserve(key, fingerprint);
            if (!reserved) {
                existing = store.find(key);
            }
        } catch (SQLException e) {
            LOG.log(Level.WARNING, "idempotency store unavailable; answering 503 without running the request", e);
            answer(resp, HttpServletResponse.SC_SERVICE_UNAVAILABLE, "idempotency store unavailable");
            return;
        }
        if (!reserved) {
            answerExisting(resp, existing, fingerprint);
            return;
        }

        CapturingResponse captured = new CapturingResponse(resp);
        try {
            chain.doFilter(buffered, captured);
        } catch (Throwable t) {
            // The application did not finish: free the key so that the client's retry runs it again.
            releaseQuietly(key);
            throw t;
        }

        int status = captured.getStatus();
        byte[] body = captured.body();
        if (status >= 500) {
            // A server error is not an outcome worth replaying: free the key so that a retry runs again.
            releaseQuietly(key);
        } else {
            try {
                if (!store.complete(key, status, captured.getContentType(), body)) {
                    LOG.warning(() -> "idempotency key " + key + " was no longer in flight; response not stored");
                }
            } catch (SQLException e) {
                // The application has run, so the key must not be freed (a retry would run it twice). It stays
                // IN_FLIGHT, so retries get 409, until the purge removes it; the client still gets the real answer.
                LOG.log(Level.WARNING, "could not store the response for idempotency key " + key, e);
            }
        }
        resp.setStatus(status);
        resp.setContentLength(body.length);
        resp.getOutputStream().write(body);
    }

    private static void answerExisting(HttpServletResponse resp, IdempotencyStore.Row row, byte[] fingerprint)
            throws IOException {
        if (row == null) {
            // Released (a 5xx) or purged between our INSERT and SELECT: the key is free again, so a retry will run.
            resp.setHeader("Retry-After", "1");
            answer(resp, HttpServletResponse.SC_CONFLICT, "request with this Idempotency-Key was just released; retry");
        } else if (!MessageDigest.isEqual(row.fingerprint, fingerprint)) {
            // Checked before the status: a key reused for another request is a client error that waiting won't fix.
            answer(resp, 422, "Idempotency-Key already used for a different request");
        } else if (IdempotencyStore.IN_FLIGHT.equals(row.status)) {
            resp.setHeader("Retry-After", "1");
            answer(resp, HttpServletResponse.SC_CONFLICT, "request with this Idempotency-Key is still in progress");
        } else {
            resp.setStatus(row.responseStatus);
            if (row.responseContentType != null) {
                resp.setContentType(row.responseContentType);
            }
            resp.setHeader(REPLAYED_HEADER, "true");
            byte[] body = row.responseBody == null ? new byte[0] : row.responseBody;
            resp.setContentLength(body.length);
            resp.getOutputStream().write(body);
        }
    }

    private static void answer(HttpServletResponse resp, int status, String message) throws IOException {
        byte[] body = ("{\"error\":\"" + message + "\"}").getBytes(StandardCharsets.UTF_8);
        resp.setStatus(status);
        resp.setContentType("application/json");
        resp.setContentLength(body.length);
        resp.getOutputStream().write(body);
    }

    private void releaseQuietly(String key) {
        try {
            store.release(key);
        } catch (SQLException e) {
            // The row stays IN_FLIGHT: retries get 409 until the purge removes it, which is safe, only slow.
            LOG.log(Level.WARNING, "could not release idempotency key " + key, e);
        }
    }

    @Override
    public void destroy() {
        if (purger != null) {
            purger.shutdownNow();
        }
        if (store != null) {
            store.close();
        }
    }
}
