package dev.idempotency.agent.bootstrap.bridge;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.util.List;
import java.util.Map;

/**
 * The servlet API, seen without its namespace. One implementation per namespace ({@code javax.servlet},
 * {@code jakarta.servlet}) is injected next to the servlet API classes it calls; the agent core uses only this.
 */
public interface ServletAccessor {

    // ---- request

    String method(Object request);

    /** The first value of a request header, or null. */
    String header(Object request, String name);

    /** Every value of a request header, one per field, in order. */
    List<String> headers(Object request, String name);

    /** True on the initial dispatch of a request (not a forward, include, error or async dispatch). */
    boolean isInitialDispatch(Object request);

    boolean isAsyncDispatch(Object request);

    String requestUri(Object request);

    String queryString(Object request);

    String contentType(Object request);

    String characterEncoding(Object request);

    String principalName(Object request);

    Object attribute(Object request, String name);

    void setAttribute(Object request, String name, Object value);

    InputStream body(Object request) throws IOException;

    boolean isAsyncStarted(Object request);

    /** Listens for the end of the asynchronous cycle started on {@code request}. */
    void onAsyncEnd(Object request, AsyncEnd listener);

    // ---- wrappers

    /** A response whose body goes to {@code capture} instead of the client; status and headers pass through. */
    Object capturingResponse(Object response, ResponseCapture capture);

    /** Writes out what a capturing response's writer still holds, so the capture has every byte. */
    void flushWriter(Object capturingResponse) throws IOException;

    /**
     * A request whose body reads as {@code body} (the agent consumed the original); for form posts its parameters come
     * from {@code formParameters}. Asynchronous cycles started on it carry {@code capturingResponse}.
     */
    Object replayingRequest(Object request, byte[] body, Map<String, String[]> formParameters, Object capturingResponse,
                            ResponseCapture capture);

    // ---- response

    int status(Object response);

    /** Every header of the response as [name, value] pairs, Content-Type included. */
    List<String[]> responseHeaders(Object response);

    void setStatus(Object response, int status);

    void setHeader(Object response, String name, String value);

    void setContentLength(Object response, int length);

    void sendError(Object response, int status, String message) throws IOException;

    OutputStream outputStream(Object response) throws IOException;

    /** Replaces whatever the response holds with this status, headers and body (Content-Length follows the body). */
    void send(Object response, int status, List<String[]> headers, byte[] body) throws IOException;
}
