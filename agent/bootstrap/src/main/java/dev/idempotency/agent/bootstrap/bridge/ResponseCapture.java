package dev.idempotency.agent.bootstrap.bridge;

import java.io.IOException;

/** Where a capturing response sends what the application writes; implemented by the agent core. */
public interface ResponseCapture {

    void write(int b) throws IOException;

    void write(byte[] bytes, int offset, int length) throws IOException;

    /** The application asked to flush; a buffered response holds it until the response is recorded. */
    void flushBuffer() throws IOException;

    /** Discards what was buffered (the application reset the response). */
    void resetBuffer();

    /** The application called sendError; the agent renders it when the exchange ends. */
    void sendError(int status, String message);

    /**
     * The application called sendRedirect: 302 and a cleared buffer before Servlet 6.1, which adds a status and whether
     * to keep what was buffered.
     */
    void sendRedirect(String location, int status, boolean clearBuffer);

    /** The application completed its asynchronous cycle: record and send the response before the container ends it. */
    void beforeAsyncComplete();
}
