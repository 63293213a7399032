package dev.idempotency.agent.servlet.javax;

import dev.idempotency.agent.bootstrap.bridge.ResponseCapture;

import java.io.IOException;
import java.io.OutputStreamWriter;
import java.io.PrintWriter;
import javax.servlet.ServletOutputStream;
import javax.servlet.http.HttpServletResponse;
import javax.servlet.http.HttpServletResponseWrapper;

/**
 * Status and headers pass through to the container's response (nothing is sent before the body); the body goes to the
 * capture, which keeps it until the agent has recorded it, then sends it. sendError and sendRedirect are recorded
 * instead of committing the response.
 */
final class CapturingResponse extends HttpServletResponseWrapper {
    private final ResponseCapture capture;
    /** The request this response answers: its web application names the session cookie. Null where unknown. */
    private final javax.servlet.http.HttpServletRequest answered;
    private final CapturingOutputStream stream;
    private boolean usingStream;
    private PrintWriter writer;
    private boolean errorSent;
    /** The cookies the application added, which some containers (Undertow, Liberty) write only at commit. */
    private final java.util.List<javax.servlet.http.Cookie> addedCookies = new java.util.ArrayList<>(0);

    java.util.List<javax.servlet.http.Cookie> addedCookies() {
        return addedCookies;
    }

    javax.servlet.http.HttpServletRequest answered() {
        return answered;
    }

    /** The locale the application set, which some containers (Tomcat) write as Content-Language only at commit. */
    private java.util.Locale explicitLocale;
    /** Non-null once the container ended the request: status and headers stop reaching the container's response. */
    private volatile DetachedHead detached;

    CapturingResponse(javax.servlet.http.HttpServletRequest answered, HttpServletResponse response, ResponseCapture capture) {
        super(response);
        this.answered = answered;
        this.capture = capture;
        this.stream = new CapturingOutputStream(capture);
    }

    @Override
    public ServletOutputStream getOutputStream() {
        if (writer != null) throw new IllegalStateException("getWriter() has already been called for this response");
        usingStream = true;
        return stream;
    }

    @Override
    public PrintWriter getWriter() throws IOException {
        if (usingStream) throw new IllegalStateException("getOutputStream() has already been called for this response");
        if (writer == null) {
            // The container's writer is taken too: it locks the charset and names it in Content-Type by its own rules
            // (Tomcat names it for every type, Jetty and Liberty not for JSON), as without the agent. What the
            // application writes still comes here; the body then leaves through that writer.
            if (detached == null) super.getWriter();
            String charset = getCharacterEncoding();
            writer = new PrintWriter(new OutputStreamWriter(stream, charset), false);
        }
        return writer;
    }

    void detach(int status, java.util.List<String[]> headers) {
        detached = new DetachedHead(status, headers);
    }

    void flushWriter() {
        if (writer != null) writer.flush();
    }

    @Override
    public void flushBuffer() throws IOException {
        flushWriter();
        capture.flushBuffer();
    }

    @Override
    public boolean isCommitted() {
        return errorSent || detached != null || super.isCommitted();
    }

    @Override
    public void resetBuffer() {
        if (detached == null) super.resetBuffer();
        flushWriter();
        capture.resetBuffer();
    }

    @Override
    public void reset() {
        if (detached == null) super.reset();
        flushWriter();
        capture.resetBuffer();
    }

    @Override
    public void sendError(int sc) {
        sendError(sc, null);
    }

    @Override
    public void sendError(int sc, String msg) {
        if (isCommitted()) throw new IllegalStateException("the response is already committed");
        errorSent = true;
        capture.sendError(sc, msg);
    }

    @Override
    public void sendRedirect(String location) {
        sendRedirect(location, HttpServletResponse.SC_FOUND, true);
    }

    // Servlet 6.1's overloads. Compiled against an older API they override nothing here, but relocated to jakarta and
    // run on a 6.1 container they override the wrapper's, which would pass the redirect straight to the container.

    public void sendRedirect(String location, int status) {
        sendRedirect(location, status, true);
    }

    public void sendRedirect(String location, boolean clearBuffer) {
        sendRedirect(location, HttpServletResponse.SC_FOUND, clearBuffer);
    }

    public void sendRedirect(String location, int status, boolean clearBuffer) {
        if (isCommitted()) throw new IllegalStateException("the response is already committed");
        capture.sendRedirect(location, status, clearBuffer);
    }

    // After the container ended the request, the head goes to the detached copy.

    @Override
    public void setStatus(int sc) {
        DetachedHead d = detached;
        if (d == null) super.setStatus(sc);
        else d.status(sc);
    }

    @Override
    public int getStatus() {
        DetachedHead d = detached;
        return d == null ? super.getStatus() : d.status();
    }

    @Override
    public void setHeader(String name, String value) {
        DetachedHead d = detached;
        if (d == null) super.setHeader(name, value);
        else d.set(name, value);
    }

    @Override
    public void addHeader(String name, String value) {
        DetachedHead d = detached;
        if (d == null) super.addHeader(name, value);
        else d.add(name, value);
    }

    @Override
    public void setIntHeader(String name, int value) {
        if (detached == null) super.setIntHeader(name, value);
        else setHeader(name, String.valueOf(value));
    }

    @Override
    public void addIntHeader(String name, int value) {
        if (detached == null) super.addIntHeader(name, value);
        else addHeader(name, String.valueOf(value));
    }

    @Override
    public void setDateHeader(String name, long date) {
        if (detached == null) super.setDateHeader(name, date);
        else setHeader(name, httpDate(date));
    }

    @Override
    public void addDateHeader(String name, long date) {
        if (detached == null) super.addDateHeader(name, date);
        else addHeader(name, httpDate(date));
    }

    @Override
    public boolean containsHeader(String name) {
        DetachedHead d = detached;
        return d == null ? super.containsHeader(name) : d.get(name) != null;
    }

    @Override
    public String getHeader(String name) {
        DetachedHead d = detached;
        return d == null ? super.getHeader(name) : d.get(name);
    }

    @Override
    public java.util.Collection<String> getHeaders(String name) {
        DetachedHead d = detached;
        return d == null ? super.getHeaders(name) : d.all(name);
    }

    @Override
    public java.util.Collection<String> getHeaderNames() {
        DetachedHead d = detached;
        return d == null ? super.getHeaderNames() : d.names();
    }

    @Override
    public void setContentType(String type) {
        if (detached == null) super.setContentType(type);
        else setHeader("Content-Type", type);
    }

    @Override
    public String getContentType() {
        DetachedHead d = detached;
        return d == null ? super.getContentType() : d.get("Content-Type");
    }

    @Override
    public String getCharacterEncoding() {
        DetachedHead d = detached;
        return d == null ? super.getCharacterEncoding() : d.charset();
    }

    @Override
    public void setCharacterEncoding(String charset) {
        if (detached == null) super.setCharacterEncoding(charset);
    }

    @Override
    public void setContentLength(int len) {
        if (detached == null) super.setContentLength(len);
    }

    @Override
    public void setContentLengthLong(long len) {
        if (detached == null) super.setContentLengthLong(len);
    }

    @Override
    public void addCookie(javax.servlet.http.Cookie cookie) {
        if (detached == null) {
            super.addCookie(cookie);
            addedCookies.add(cookie);
        } else {
            addHeader("Set-Cookie", cookie.getName() + "=" + cookie.getValue());
        }
    }

    @Override
    public void setLocale(java.util.Locale locale) {
        if (detached != null || locale == null) return;
        super.setLocale(locale);
        explicitLocale = super.getLocale();
    }

    /** The locale the application set on this response, or null. */
    java.util.Locale explicitLocale() {
        return explicitLocale;
    }

    @Override
    public void setBufferSize(int size) {
        if (detached == null) super.setBufferSize(size);
    }

    private static String httpDate(long millis) {
        java.text.SimpleDateFormat format = new java.text.SimpleDateFormat("EEE, dd MMM yyyy HH:mm:ss 'GMT'", java.util.Locale.US);
        format.setTimeZone(java.util.TimeZone.getTimeZone("GMT"));
        return format.format(new java.util.Date(millis));
    }
}
