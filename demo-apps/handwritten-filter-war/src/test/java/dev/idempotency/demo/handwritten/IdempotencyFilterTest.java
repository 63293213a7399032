package dev.idempotency.demo.handwritten;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintWriter;
import java.lang.reflect.Proxy;
import java.nio.charset.StandardCharsets;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;
import javax.servlet.FilterChain;
import javax.servlet.FilterConfig;
import javax.servlet.ReadListener;
import javax.servlet.ServletContext;
import javax.servlet.ServletException;
import javax.servlet.ServletInputStream;
import javax.servlet.ServletOutputStream;
import javax.servlet.WriteListener;
import javax.servlet.http.HttpServletRequest;
import javax.servlet.http.HttpServletResponse;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** The filter on an in-memory H2, with the smallest request and response a filter needs (no container). */
class IdempotencyFilterTest {
    private static final String BODY = "{\"amount\":1250,\"currency\":\"EUR\"}";
    private static final AtomicInteger DATABASES = new AtomicInteger();

    private final IdempotencyFilter filter = new IdempotencyFilter();
    private final AtomicInteger runs = new AtomicInteger();

    @BeforeEach
    void start() throws Exception {
        Map<String, String> params = new HashMap<>();
        params.put("handwritten.idempotency.url", "jdbc:h2:mem:filter" + DATABASES.incrementAndGet() + ";DB_CLOSE_DELAY=-1");
        ServletContext context = proxy(ServletContext.class, (name, args) ->
                name.equals("getInitParameter") ? params.get((String) args[0]) : null);
        filter.init(proxy(FilterConfig.class, (name, args) -> name.equals("getServletContext") ? context : null));
    }

    @AfterEach
    void stop() {
        filter.destroy();
    }

    /** The application: counts its runs, answers status with "done <n>". */
    private FilterChain app(int status) {
        return (req, resp) -> {
            String body = new String(readAll(req.getInputStream()), StandardCharsets.UTF_8);
            assertEquals(BODY, body, "the application reads the body the filter buffered");
            HttpServletResponse response = (HttpServletResponse) resp;
            response.setStatus(status);
            response.setContentType("text/plain");
            response.getWriter().print("done " + runs.incrementAndGet());
        };
    }

    @Test
    void newKeyRunsOnceAndReplays() throws Exception {
        Answer first = send("k1", BODY, app(201));
        assertEquals(201, first.status);
        assertEquals("done 1", first.body);
        assertNull(first.headers.get("Idempotent-Replayed"));

        Answer again = send("k1", BODY, app(201));
        assertEquals(201, again.status);
        assertEquals("done 1", again.body);
        assertEquals("text/plain", again.contentType);
        assertEquals("true", again.headers.get("Idempotent-Replayed"));
        assertEquals(1, runs.get());
    }

    @Test
    void anotherRequestWithTheKeyIs422() throws Exception {
        send("k1", BODY, app(200));
        assertEquals(422, send("k1", "{\"amount\":1,\"currency\":\"EUR\"}", app(200)).status);
        assertEquals(1, runs.get());
    }

    @Test
    void aKeyInFlightIs409() throws Exception {
        Answer[] inner = new Answer[1];
        Answer outer = send("k1", BODY, (req, resp) -> {
            inner[0] = send("k1", BODY, app(200));
            app(200).doFilter(req, resp);
        });
        assertEquals(409, inner[0].status);
        assertEquals("1", inner[0].headers.get("Retry-After"));
        assertEquals(200, outer.status);
        assertEquals(1, runs.get());
    }

    @Test
    void serverErrorsAndExceptionsReleaseTheKey() throws Exception {
        assertEquals(503, send("k1", BODY, app(503)).status);
        assertThrows(IllegalStateException.class, () -> send("k1", BODY, (req, resp) -> {
            runs.incrementAndGet();
            throw new IllegalStateException("boom");
        }));
        Answer retry = send("k1", BODY, app(200));
        assertEquals("done 3", retry.body);
        assertNull(retry.headers.get("Idempotent-Replayed"));
    }

    @Test
    void withoutAKeyTheRequestPassesThrough() throws Exception {
        send(null, BODY, app(200));
        send(null, BODY, app(200));
        assertEquals(2, runs.get());
    }

    static final class Answer {
        int status = 200;
        String contentType;
        final Map<String, String> headers = new HashMap<>();
        final ByteArrayOutputStream out = new ByteArrayOutputStream();
        final PrintWriter writer = new PrintWriter(out);
        String body;
    }

    private Answer send(String key, String body, FilterChain chain) throws IOException, ServletException {
        byte[] bytes = body.getBytes(StandardCharsets.UTF_8);
        ByteArrayInputStream in = new ByteArrayInputStream(bytes);
        HttpServletRequest request = proxy(HttpServletRequest.class, (name, args) -> {
            switch (name) {
                case "getHeader": return "Idempotency-Key".equals(args[0]) ? key : null;
                case "getMethod": return "POST";
                case "getRequestURI": return "/shop/ping";
                case "getContentLength": return bytes.length;
                case "getInputStream": return inputStream(in);
                default: return null;
            }
        });
        Answer answer = new Answer();
        HttpServletResponse response = proxy(HttpServletResponse.class, (name, args) -> {
            switch (name) {
                case "setStatus": answer.status = (Integer) args[0]; return null;
                case "getStatus": return answer.status;
                case "setContentType": answer.contentType = (String) args[0]; return null;
                case "getContentType": return answer.contentType;
                case "getCharacterEncoding": return "UTF-8";
                case "setHeader": answer.headers.put((String) args[0], (String) args[1]); return null;
                case "getOutputStream": return outputStream(answer.out);
                case "getWriter": return answer.writer;
                case "isCommitted": return false;
                default: return null;
            }
        });
        filter.doFilter(request, response, chain);
        answer.writer.flush();
        answer.body = answer.out.toString("UTF-8");
        return answer;
    }

    interface Handler {
        Object call(String method, Object[] args) throws Exception;
    }

    @SuppressWarnings("unchecked")
    private static <T> T proxy(Class<T> type, Handler handler) {
        return (T) Proxy.newProxyInstance(type.getClassLoader(), new Class<?>[] {type},
                (self, method, args) -> handler.call(method.getName(), args));
    }

    private static byte[] readAll(ServletInputStream in) throws IOException {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        for (int b; (b = in.read()) != -1; ) out.write(b);
        return out.toByteArray();
    }

    private static ServletInputStream inputStream(ByteArrayInputStream in) {
        return new ServletInputStream() {
            @Override public int read() { return in.read(); }
            @Override public boolean isFinished() { return in.available() == 0; }
            @Override public boolean isReady() { return true; }
            @Override public void setReadListener(ReadListener listener) {}
        };
    }

    private static ServletOutputStream outputStream(ByteArrayOutputStream out) {
        return new ServletOutputStream() {
            @Override public void write(int b) { out.write(b); }
            @Override public boolean isReady() { return true; }
            @Override public void setWriteListener(WriteListener listener) {}
        };
    }
}
