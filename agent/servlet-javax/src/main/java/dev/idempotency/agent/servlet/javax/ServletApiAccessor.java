package dev.idempotency.agent.servlet.javax;

import dev.idempotency.agent.bootstrap.bridge.AsyncEnd;
import dev.idempotency.agent.bootstrap.bridge.CapturedBody;
import dev.idempotency.agent.bootstrap.bridge.ResponseCapture;
import dev.idempotency.agent.bootstrap.bridge.ServletAccessor;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.security.Principal;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Collections;
import java.util.Enumeration;
import java.util.List;
import java.util.function.Function;
import javax.servlet.DispatcherType;
import javax.servlet.Registration;
import javax.servlet.ServletRequestWrapper;
import javax.servlet.http.Cookie;
import javax.servlet.http.HttpServletRequest;
import javax.servlet.http.HttpServletResponse;

/**
 * The servlet API behind the namespace-free {@link ServletAccessor}. Written against {@code javax.servlet}; the build
 * relocates a copy of these classes to {@code jakarta.servlet}.
 */
public final class ServletApiAccessor implements ServletAccessor {

    @Override public String method(Object request) { return ((HttpServletRequest) request).getMethod(); }

    @Override public String header(Object request, String name) { return ((HttpServletRequest) request).getHeader(name); }

    @Override
    public List<String> headers(Object request, String name) {
        Enumeration<String> values = ((HttpServletRequest) request).getHeaders(name);
        return values == null ? Collections.<String>emptyList() : Collections.list(values);
    }

    @Override
    public boolean isInitialDispatch(Object request) {
        return ((HttpServletRequest) request).getDispatcherType() == DispatcherType.REQUEST;
    }

    @Override
    public boolean isAsyncDispatch(Object request) {
        return ((HttpServletRequest) request).getDispatcherType() == DispatcherType.ASYNC;
    }

    @Override
    public boolean isForwardDispatch(Object request) {
        return ((HttpServletRequest) request).getDispatcherType() == DispatcherType.FORWARD;
    }

    @Override
    public boolean isErrorDispatch(Object request) {
        return ((HttpServletRequest) request).getDispatcherType() == DispatcherType.ERROR;
    }

    @Override
    public boolean isCaptured(Object request) {
        for (Object r = request; r instanceof ServletRequestWrapper; r = ((ServletRequestWrapper) r).getRequest()) {
            if (r instanceof CapturedRequest) return true;
        }
        return false;
    }

    @Override public String requestUri(Object request) { return ((HttpServletRequest) request).getRequestURI(); }

    @Override
    public String contextPath(Object request) {
        javax.servlet.ServletContext context = ((HttpServletRequest) request).getServletContext();
        return context == null ? ((HttpServletRequest) request).getContextPath() : context.getContextPath();
    }

    @Override
    public String servletName(Object component) {
        if (!(component instanceof javax.servlet.Servlet)) return null;
        javax.servlet.ServletConfig config = ((javax.servlet.Servlet) component).getServletConfig();
        return config == null ? null : config.getServletName();
    }

    @Override
    public List<String[]> servletRegistrations(Object request) {
        javax.servlet.ServletContext context = ((HttpServletRequest) request).getServletContext();
        if (context == null) return Collections.emptyList();
        return registrations(context.getServletRegistrations().values(),
                r -> ((javax.servlet.ServletRegistration) r).getMappings());
    }

    @Override
    public List<String[]> filterRegistrations(Object request) {
        javax.servlet.ServletContext context = ((HttpServletRequest) request).getServletContext();
        if (context == null) return Collections.emptyList();
        return registrations(context.getFilterRegistrations().values(),
                r -> ((javax.servlet.FilterRegistration) r).getUrlPatternMappings());
    }

    /** Each registration as {name, class name, mapping...}. */
    private static List<String[]> registrations(Collection<? extends Registration> registrations,
                                                Function<Registration, Collection<String>> mappings) {
        List<String[]> rows = new ArrayList<>();
        for (Registration r : registrations) {
            Collection<String> mapped = mappings.apply(r);
            List<String> row = new ArrayList<>();
            row.add(r.getName());
            row.add(String.valueOf(r.getClassName()));
            if (mapped != null) row.addAll(mapped);
            rows.add(row.toArray(new String[0]));
        }
        return rows;
    }

    @Override public String queryString(Object request) { return ((HttpServletRequest) request).getQueryString(); }

    @Override public String contentType(Object request) { return ((HttpServletRequest) request).getContentType(); }


    @Override
    public String principalName(Object request) {
        Principal principal = ((HttpServletRequest) request).getUserPrincipal();
        return principal == null ? null : principal.getName();
    }

    @Override
    public String liveUrlSessionId(Object request) {
        HttpServletRequest r = (HttpServletRequest) request;
        return r.getRequestedSessionId() != null && r.isRequestedSessionIdFromURL() && r.isRequestedSessionIdValid()
                ? r.getRequestedSessionId() : null;
    }

    @Override
    public List<String[]> cookies(Object request) {
        Cookie[] cookies = ((HttpServletRequest) request).getCookies();
        if (cookies == null) return Collections.emptyList();
        List<String[]> pairs = new ArrayList<>(cookies.length);
        for (Cookie c : cookies) pairs.add(new String[] {c.getName(), c.getValue()});
        return pairs;
    }

    @Override
    public long contentLength(Object request) {
        HttpServletRequest r = (HttpServletRequest) request;
        int length = r.getContentLength();
        return length >= 0 ? length : lengthBeyondInt(r);
    }

    /**
     * getContentLength() is -1 above Integer.MAX_VALUE, and getContentLengthLong() is Servlet 3.1 (absent from the
     * 3.0 containers the agent supports): such a length is read from the header. A smaller one the container answered
     * -1 for, a chunked body's or a malformed one, stays unknown.
     */
    private static long lengthBeyondInt(HttpServletRequest r) {
        String declared = r.getHeader("Content-Length");
        if (declared == null || r.getHeader("Transfer-Encoding") != null) return -1;
        try {
            long length = Long.parseLong(declared.trim());
            return length > Integer.MAX_VALUE ? length : -1;
        } catch (NumberFormatException e) {
            return -1;
        }
    }

    @Override public Object attribute(Object request, String name) { return ((HttpServletRequest) request).getAttribute(name); }

    @Override public void setAttribute(Object request, String name, Object value) { ((HttpServletRequest) request).setAttribute(name, value); }

    @Override public InputStream body(Object request) throws IOException { return ((HttpServletRequest) request).getInputStream(); }

    @Override public boolean isAsyncStarted(Object request) { return ((HttpServletRequest) request).isAsyncStarted(); }

    @Override
    public void onAsyncEnd(Object request, AsyncEnd listener) {
        javax.servlet.AsyncContext context = ((HttpServletRequest) request).getAsyncContext();
        if (context instanceof CapturingAsyncContext) return; // it has listened since the cycle started
        context.addListener(new AsyncEndListener(listener));
    }

    @Override
    public Object capturingResponse(Object request, Object response, ResponseCapture capture) {
        return new CapturingResponse((HttpServletRequest) request, (HttpServletResponse) response, capture);
    }

    @Override
    public void detach(Object capturingResponse, int status, List<String[]> headers) {
        ((CapturingResponse) capturingResponse).detach(status, headers);
    }

    @Override
    public void flushWriter(Object capturingResponse) {
        ((CapturingResponse) capturingResponse).flushWriter();
    }

    @Override
    public Object capturedRequest(Object request, CapturedBody body) {
        return new CapturedRequest((HttpServletRequest) request, body);
    }

    @Override
    public Object protectedRequest(Object request, Object capturingResponse, ResponseCapture capture, AsyncEnd end) {
        return new ProtectedRequest((HttpServletRequest) request, (HttpServletResponse) capturingResponse, capture, end);
    }

    @Override public int status(Object response) { return ((HttpServletResponse) response).getStatus(); }

    @Override
    public List<String[]> responseHeaders(Object response) {
        HttpServletResponse r = (HttpServletResponse) response;
        List<String[]> headers = new ArrayList<>();
        boolean contentTypeListed = false;
        boolean contentLanguageListed = false;
        for (String name : new ArrayList<>(r.getHeaderNames())) {
            contentTypeListed |= name.equalsIgnoreCase("Content-Type");
            contentLanguageListed |= name.equalsIgnoreCase("Content-Language");
            Collection<String> values = r.getHeaders(name);
            for (String value : values) headers.add(new String[] {name, value});
        }
        if (!contentTypeListed && r.getContentType() != null) headers.add(new String[] {"Content-Type", r.getContentType()});
        if (r instanceof CapturingResponse) {
            recordAddedCookies((CapturingResponse) r, headers);
            recordHeldSessionCookie((CapturingResponse) r, headers);
        }
        java.util.Locale locale = r instanceof CapturingResponse ? ((CapturingResponse) r).explicitLocale() : null;
        if (locale != null && !contentLanguageListed) {
            // Tomcat keeps a locale in a field and writes it at commit, in this form; other containers list the header
            headers.add(new String[] {"Content-Language", locale.toLanguageTag()});
        }
        return headers;
    }

    /** Cookies the application added that the container does not list among the headers yet (it writes them at commit). */
    private static void recordAddedCookies(CapturingResponse r, List<String[]> headers) {
        for (Cookie cookie : r.addedCookies()) {
            boolean listed = false;
            for (String[] header : headers) {
                listed |= header[0].equalsIgnoreCase("Set-Cookie") && header[1].startsWith(cookie.getName() + "=");
            }
            if (!listed) headers.add(new String[] {ADDED_COOKIE, CookieForm.write(cookie)});
        }
    }

    /**
     * The session cookie the container set (creating or changing the session) but does not list among the headers yet:
     * its session manager added it to the container's own response, where it is read (see {@link HeldSessionCookie}).
     * It is recorded as an added cookie, so that a replay adds it again for the container to write in its own form, and
     * so that the response is recorded in the scope of the retry that carries it too.
     */
    private static void recordHeldSessionCookie(CapturingResponse r, List<String[]> headers) {
        String name = HeldSessionCookie.name(r.answered());
        if (name == null) return;
        for (String[] header : headers) {
            // listed (Tomcat, Jetty and Payara list it), or one the application added itself
            if ((header[0].equalsIgnoreCase("Set-Cookie") || header[0].equalsIgnoreCase(ADDED_COOKIE))
                    && header[1].startsWith(name + "=")) return;
        }
        Cookie held = HeldSessionCookie.of(r.answered(), r.getResponse(), name);
        if (held != null) headers.add(new String[] {ADDED_COOKIE, CookieForm.write(held)});
    }

    @Override public void setStatus(Object response, int status) { ((HttpServletResponse) response).setStatus(status); }

    @Override
    public void addCookie(Object response, String recorded) {
        ((HttpServletResponse) response).addCookie(CookieForm.read(recorded));
    }

    @Override public void setHeader(Object response, String name, String value) { ((HttpServletResponse) response).setHeader(name, value); }

    // The calls that send the captured response: each first lifts a suspension Tomcat put on it after a forward.

    @Override
    public void setContentLength(Object response, int length) {
        SuspendedAfterForward.lift((HttpServletResponse) response);
        ((HttpServletResponse) response).setContentLength(length);
    }

    @Override
    public void sendError(Object response, int status, String message) throws IOException {
        SuspendedAfterForward.lift((HttpServletResponse) response);
        if (message == null) ((HttpServletResponse) response).sendError(status);
        else ((HttpServletResponse) response).sendError(status, message);
    }

    @Override
    public OutputStream outputStream(Object response) throws IOException {
        SuspendedAfterForward.lift((HttpServletResponse) response);
        return bodyStream((HttpServletResponse) response);
    }

    /** The response's output stream, or its writer where the application's writer took it (see CapturingResponse). */
    private static OutputStream bodyStream(HttpServletResponse r) throws IOException {
        try {
            return r.getOutputStream();
        } catch (IllegalStateException writerTaken) {
            return new WriterOutputStream(r.getWriter(), r.getCharacterEncoding());
        }
    }

    @Override
    public void sendRedirect(Object response, String location, int status, boolean clearBuffer) throws IOException {
        HttpServletResponse r = (HttpServletResponse) response;
        SuspendedAfterForward.lift(r);
        if (status == HttpServletResponse.SC_FOUND && clearBuffer) {
            r.sendRedirect(location);
            return;
        }
        java.lang.reflect.Method servlet61 = SERVLET61_REDIRECT;
        if (servlet61 == null) {
            r.sendRedirect(location);
            return;
        }
        try {
            servlet61.invoke(r, location, status, clearBuffer);
        } catch (IllegalAccessException e) {
            throw new IOException(e);
        } catch (java.lang.reflect.InvocationTargetException e) {
            if (e.getCause() instanceof IOException) throw (IOException) e.getCause();
            if (e.getCause() instanceof RuntimeException) throw (RuntimeException) e.getCause();
            throw new IOException(e.getCause());
        }
    }

    /** Servlet 6.1's sendRedirect(String, int, boolean), where the container's servlet API has it; else null. */
    private static final java.lang.reflect.Method SERVLET61_REDIRECT = servlet61Redirect();

    private static java.lang.reflect.Method servlet61Redirect() {
        try {
            return HttpServletResponse.class.getMethod("sendRedirect", String.class, int.class, boolean.class);
        } catch (NoSuchMethodException e) {
            return null;
        }
    }

    @Override
    public void send(Object response, int status, List<String[]> headers, byte[] body, boolean keepEarlierHeaders) throws IOException {
        HttpServletResponse r = (HttpServletResponse) response;
        setHead(r, status, headers, keepEarlierHeaders);
        r.setContentLength(body.length);
        OutputStream out = bodyStream(r);
        out.write(body);
        out.flush();
    }

    @Override
    public void setHead(Object response, int status, List<String[]> headers, boolean keepEarlierHeaders) {
        HttpServletResponse r = (HttpServletResponse) response;
        SuspendedAfterForward.lift(r);
        if (keepEarlierHeaders) r.resetBuffer();
        else r.reset();
        r.setStatus(status);
        java.util.Set<String> written = new java.util.HashSet<>();
        for (String[] header : headers) {
            if (header[0].equalsIgnoreCase("Content-Type")) ContentTypeCalls.set(r, header[1]);
            else if (written.add(header[0].toLowerCase(java.util.Locale.ROOT))) r.setHeader(header[0], header[1]);
            else r.addHeader(header[0], header[1]);
        }
    }
}
