package dev.idempotency.demo.handwrittencheck;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.OutputStreamWriter;
import java.io.PrintWriter;
import java.lang.reflect.Proxy;
import java.nio.charset.StandardCharsets;
import java.util.Map;
import java.util.TreeMap;
import javax.servlet.FilterConfig;
import javax.servlet.ReadListener;
import javax.servlet.ServletContext;
import javax.servlet.ServletInputStream;
import javax.servlet.ServletOutputStream;
import javax.servlet.WriteListener;
import javax.servlet.http.HttpServletRequest;
import javax.servlet.http.HttpServletResponse;

/** Just enough of a servlet container, as dynamic proxies, to drive the filter without one. */
final class FakeHttp {

    private FakeHttp() {
    }

    static FilterConfig filterConfig(Map<String, String> contextParams) {
        ServletContext context = proxy(ServletContext.class, (name, args) -> switch (name) {
            case "getInitParameter" -> contextParams.get((String) args[0]);
            case "getContextPath" -> "/shop";
            default -> null;
        });
        return proxy(FilterConfig.class, (name, args) -> switch (name) {
            case "getServletContext" -> context;
            case "getFilterName" -> "idempotency";
            default -> null;
        });
    }

    static HttpServletRequest request(String method, String uri, String key, byte[] body) {
        ByteArrayInputStream in = new ByteArrayInputStream(body);
        ServletInputStream stream = new ServletInputStream() {
            @Override public int read() { return in.read(); }
            @Override public boolean isFinished() { return in.available() == 0; }
            @Override public boolean isReady() { return true; }
            @Override public void setReadListener(ReadListener listener) { throw new UnsupportedOperationException(); }
        };
        return proxy(HttpServletRequest.class, (name, args) -> switch (name) {
            case "getMethod" -> method;
            case "getRequestURI" -> uri;
            case "getHeader" -> "Idempotency-Key".equalsIgnoreCase((String) args[0]) ? key : null;
            case "getContentType" -> "application/json";
            case "getContentLength" -> body.length;
            case "getInputStream" -> stream;
            default -> null;
        });
    }

    /** What reached the "client": status, headers and the bytes written. */
    static final class Recorded {
        int status = 200;
        final Map<String, String> headers = new TreeMap<>(String.CASE_INSENSITIVE_ORDER);
        private final ByteArrayOutputStream body = new ByteArrayOutputStream();
        private PrintWriter writer;
        final HttpServletResponse response;

        Recorded() {
            ServletOutputStream out = new ServletOutputStream() {
                @Override public void write(int b) { body.write(b); }
                @Override public boolean isReady() { return true; }
                @Override public void setWriteListener(WriteListener listener) { throw new UnsupportedOperationException(); }
            };
            response = proxy(HttpServletResponse.class, (name, args) -> switch (name) {
                case "setStatus" -> { status = (Integer) args[0]; yield null; }
                case "getStatus" -> status;
                case "setContentType" -> { headers.put("Content-Type", (String) args[0]); yield null; }
                case "getContentType" -> headers.get("Content-Type");
                case "setHeader", "addHeader" -> { headers.put((String) args[0], (String) args[1]); yield null; }
                case "getHeader" -> headers.get((String) args[0]);
                case "getCharacterEncoding" -> "UTF-8";
                case "getOutputStream" -> out;
                case "getWriter" -> writer != null ? writer
                        : (writer = new PrintWriter(new OutputStreamWriter(body, StandardCharsets.UTF_8)));
                default -> null;
            });
        }

        /** The bytes the client received, whether they were written to the stream or the writer. */
        byte[] bytes() {
            if (writer != null) {
                writer.flush();
            }
            return body.toByteArray();
        }

        String text() {
            return new String(bytes(), StandardCharsets.UTF_8);
        }

        String header(String name) {
            return headers.get(name);
        }
    }

    interface Handler {
        Object handle(String method, Object[] args) throws Throwable;
    }

    /** Unlisted methods answer null, false or 0, which is what an untouched request or response would say. */
    private static <T> T proxy(Class<T> type, Handler handler) {
        return type.cast(Proxy.newProxyInstance(FakeHttp.class.getClassLoader(), new Class<?>[] {type},
                (self, method, args) -> {
                    if (method.getDeclaringClass() == Object.class) {
                        return switch (method.getName()) {
                            case "equals" -> self == args[0];
                            case "hashCode" -> System.identityHashCode(self);
                            default -> type.getSimpleName() + " fake";
                        };
                    }
                    Object value = handler.handle(method.getName(), args);
                    if (value != null || !method.getReturnType().isPrimitive()) {
                        return value;
                    }
                    Class<?> r = method.getReturnType();
                    if (r == boolean.class) return false;
                    if (r == void.class) return null;
                    if (r == long.class) return 0L;
                    return 0;
                }));
    }
}
