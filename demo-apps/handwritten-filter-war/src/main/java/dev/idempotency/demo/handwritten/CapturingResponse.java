package dev.idempotency.demo.handwritten;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.OutputStreamWriter;
import java.io.PrintWriter;
import javax.servlet.ServletOutputStream;
import javax.servlet.WriteListener;
import javax.servlet.http.HttpServletResponse;
import javax.servlet.http.HttpServletResponseWrapper;

/**
 * The response with its body held back: the filter stores the answer before the client sees it. Status and
 * headers go to the real response (not committed while the body is held here), so the filter reads them there.
 * sendError and sendRedirect go to the real response as they are: the container answers those, with no body kept.
 */
final class CapturingResponse extends HttpServletResponseWrapper {
    private final ByteArrayOutputStream body = new ByteArrayOutputStream(256);
    private ServletOutputStream stream;
    private PrintWriter writer;
    private boolean passedThrough;

    CapturingResponse(HttpServletResponse response) {
        super(response);
    }

    @Override
    public ServletOutputStream getOutputStream() {
        if (writer != null) throw new IllegalStateException("getWriter() was called already");
        if (stream == null) {
            stream = new ServletOutputStream() {
                @Override public void write(int b) { body.write(b); }
                @Override public void write(byte[] b, int off, int len) { body.write(b, off, len); }
                @Override public boolean isReady() { return true; }
                @Override public void setWriteListener(WriteListener listener) {
                    throw new IllegalStateException("the idempotency filter does not support async I/O");
                }
            };
        }
        return stream;
    }

    @Override
    public PrintWriter getWriter() throws IOException {
        if (stream != null) throw new IllegalStateException("getOutputStream() was called already");
        if (writer == null) writer = new PrintWriter(new OutputStreamWriter(body, getCharacterEncoding()));
        return writer;
    }

    @Override
    public void flushBuffer() {
        if (writer != null) writer.flush(); // and no further: committing would send the answer before it is stored
    }

    @Override
    public void resetBuffer() {
        super.resetBuffer();
        if (writer != null) writer.flush();
        body.reset();
    }

    @Override
    public void reset() {
        super.reset();
        if (writer != null) writer.flush();
        body.reset();
    }

    @Override
    public void sendError(int sc, String msg) throws IOException {
        passedThrough = true;
        super.sendError(sc, msg);
    }

    @Override
    public void sendError(int sc) throws IOException {
        passedThrough = true;
        super.sendError(sc);
    }

    @Override
    public void sendRedirect(String location) throws IOException {
        passedThrough = true;
        super.sendRedirect(location);
    }

    /** The body the application wrote (empty after sendError or sendRedirect). */
    byte[] body() {
        if (writer != null) writer.flush();
        return passedThrough ? new byte[0] : body.toByteArray();
    }

    /** Sends the held body to the client. */
    void send(byte[] answer) throws IOException {
        if (passedThrough) return;
        HttpServletResponse response = (HttpServletResponse) getResponse();
        response.setContentLength(answer.length);
        response.getOutputStream().write(answer);
    }
}
