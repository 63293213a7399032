package dev.idempotency.agent.bootstrap.bridge;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.util.List;

/**
 * The servlet API, seen without its namespace. One implementation per namespace ({@code javax.servlet},
 * {@code jakarta.servlet}) is injected next to the servlet API classes it calls; the agent core uses only this.
 */
public interface ServletAccessor {

    /**
     * Marks, among {@link #responseHeaders}, a cookie the container writes only at commit (one the application added,
     * or the session cookie its session manager set); its value is the cookie in Set-Cookie form. A replay adds it again
     * with {@link #addCookie}.
     */
    String ADDED_COOKIE = "X-Idempotency-Agent-Added-Cookie";

    // ---- request

    String method(Object request);

    /** The first value of a request header, or null. */
    String header(Object request, String name);

    /** Every value of a request header, one per field, in order. */
    List<String> headers(Object request, String name);

    /** True on the initial dispatch of a request (not a forward, include, error or async dispatch). */
    boolean isInitialDispatch(Object request);

    boolean isAsyncDispatch(Object request);

    boolean isForwardDispatch(Object request);

    /** True on the dispatch to an error page. */
    boolean isErrorDispatch(Object request);

    /** True when the request is, or wraps, one the agent captured at the request's entry (no attribute lookup). */
    boolean isCaptured(Object request);

    String requestUri(Object request);

    /** The context path of the request's web application, as its ServletContext holds it ("" for the root). */
    String contextPath(Object request);

    /** The servlet's name (its ServletConfig's), or null when {@code component} is no servlet or keeps no config. */
    String servletName(Object component);

    /**
     * The servlets the request's web application registered, each as {name, class name, mapping...}; empty when the
     * container does not say.
     */
    List<String[]> servletRegistrations(Object request);

    /** The filters the request's web application registered, each as {name, class name, URL pattern...}. */
    List<String[]> filterRegistrations(Object request);

    String queryString(Object request);

    String contentType(Object request);


    String principalName(Object request);

    /**
     * The session id the request names in its URL ({@code ;jsessionid=}) when that session is live; null otherwise
     * (a session named by a cookie counts through the credential cookies, as the client sent it).
     */
    String liveUrlSessionId(Object request);

    /** Every cookie of the request as [name, value] pairs, in order. */
    List<String[]> cookies(Object request);

    /** The declared body length, or -1. */
    long contentLength(Object request);

    Object attribute(Object request, String name);

    void setAttribute(Object request, String name, Object value);

    InputStream body(Object request) throws IOException;

    boolean isAsyncStarted(Object request);

    /** Listens for the end of the asynchronous cycle started on {@code request}. */
    void onAsyncEnd(Object request, AsyncEnd listener);

    // ---- wrappers

    /**
     * A response whose body goes to {@code capture} instead of the client; status and headers pass through.
     * {@code request} is the one it answers (its web application names the session cookie).
     */
    Object capturingResponse(Object request, Object response, ResponseCapture capture);

    /**
     * The container ended the request (asynchronous timeout or error) while the application may still write: from now
     * on the capturing response keeps status and headers itself, starting from these, and never touches the
     * container's response again.
     */
    void detach(Object capturingResponse, int status, List<String[]> headers);

    /** Writes out what a capturing response's writer still holds, so the capture has every byte. */
    void flushWriter(Object capturingResponse) throws IOException;

    /**
     * A request whose body, parameters and parts come from {@code body} (the agent consumed the original at the
     * request's outermost entry), for every filter and servlet after it.
     */
    Object capturedRequest(Object request, CapturedBody body);

    /**
     * A request whose asynchronous cycles carry {@code capturingResponse}, let {@code capture} record before the
     * container ends them, and report how they end to {@code end} (listening from the cycle's start).
     */
    Object protectedRequest(Object request, Object capturingResponse, ResponseCapture capture, AsyncEnd end);

    // ---- response

    int status(Object response);

    /** Every header of the response as [name, value] pairs, Content-Type included. */
    List<String[]> responseHeaders(Object response);

    void setStatus(Object response, int status);

    /** Adds a cookie recorded under {@link #ADDED_COOKIE}, for the container to write in its own form. */
    void addCookie(Object response, String recorded);

    void setHeader(Object response, String name, String value);

    void setContentLength(Object response, int length);

    void sendError(Object response, int status, String message) throws IOException;

    /**
     * The container's own redirect: it makes the Location from {@code location} by its settings. A status other than
     * 302, or a buffer kept, needs Servlet 6.1's {@code sendRedirect(String, int, boolean)}; before 6.1, where
     * an application cannot ask for either, it is a plain 302.
     */
    void sendRedirect(Object response, String location, int status, boolean clearBuffer) throws IOException;

    OutputStream outputStream(Object response) throws IOException;

    /**
     * Replaces the response's status and body with these, and sets these headers (Content-Length follows the body).
     * With {@code keepEarlierHeaders}, headers set before (a CORS filter's) stay unless the answer sets them too.
     */
    void send(Object response, int status, List<String[]> headers, byte[] body, boolean keepEarlierHeaders) throws IOException;

    /** As {@link #send}, without the body: the status and these headers, for the container to finish the response. */
    void setHead(Object response, int status, List<String[]> headers, boolean keepEarlierHeaders);
}
