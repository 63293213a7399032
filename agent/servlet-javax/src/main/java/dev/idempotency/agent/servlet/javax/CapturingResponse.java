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
    private final CapturingOutputStream stream;
    private boolean usingStream;
    private PrintWriter writer;
    private boolean errorSent;

    CapturingResponse(HttpServletResponse response, ResponseCapture capture) {
        super(response);
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
            String charset = getCharacterEncoding();
            // Lock the charset in, as the container would on getWriter(): Content-Type then names it.
            setCharacterEncoding(charset);
            writer = new PrintWriter(new OutputStreamWriter(stream, charset), false);
        }
        return writer;
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
        return errorSent || super.isCommitted();
    }

    @Override
    public void resetBuffer() {
        super.resetBuffer();
        flushWriter();
        capture.resetBuffer();
    }

    @Override
    public void reset() {
        super.reset();
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
        if (isCommitted()) throw new IllegalStateException("the response is already committed");
        capture.sendRedirect(location);
    }
}
