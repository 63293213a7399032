package dev.idempotency.demo.handwrittencheck;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.OutputStreamWriter;
import java.io.PrintWriter;
import javax.servlet.ServletOutputStream;
import javax.servlet.WriteListener;
import javax.servlet.http.HttpServletResponse;
import javax.servlet.http.HttpServletResponseWrapper;

/**
 * Holds back the application's status and body so that nothing reaches the client before the filter has stored the
 * response (or released the key). Headers, content type included, go straight to the real response, which is not
 * committed until the filter writes the body.
 */
final class CapturingResponse extends HttpServletResponseWrapper {

    private final ByteArrayOutputStream buffer = new ByteArrayOutputStream(256);
    private int status = SC_OK;
    private ServletOutputStream stream;
    private PrintWriter writer;

    CapturingResponse(HttpServletResponse response) {
        super(response);
    }

    /** The bytes the application wrote, whichever of the stream or the writer it used. */
    byte[] body() {
        if (writer != null) {
            writer.flush();
        }
        return buffer.toByteArray();
    }

    @Override
    public int getStatus() {
        return status;
    }

    @Override
    public void setStatus(int sc) {
        status = sc;
    }

    @Override
    @SuppressWarnings("deprecation")
    public void setStatus(int sc, String message) {
        status = sc;
    }

    // sendError and sendRedirect would commit the real response at once; record them instead, with an empty body,
    // so the first answer and its replays are the same.
    @Override
    public void sendError(int sc) {
        status = sc;
        buffer.reset();
    }

    @Override
    public void sendError(int sc, String message) {
        sendError(sc);
    }

    @Override
    public void sendRedirect(String location) {
        status = SC_FOUND;
        buffer.reset();
        setHeader("Location", location);
    }

    @Override
    public ServletOutputStream getOutputStream() {
        if (stream == null) {
            stream = new ServletOutputStream() {
                @Override
                public void write(int b) {
                    buffer.write(b);
                }

                @Override
                public void write(byte[] b, int off, int len) {
                    buffer.write(b, off, len);
                }

                @Override
                public boolean isReady() {
                    return true;
                }

                @Override
                public void setWriteListener(WriteListener listener) {
                    throw new IllegalStateException("no async I/O on a captured response");
                }
            };
        }
        return stream;
    }

    @Override
    public PrintWriter getWriter() throws IOException {
        if (writer == null) {
            writer = new PrintWriter(new OutputStreamWriter(buffer, getCharacterEncoding()));
        }
        return writer;
    }

    /** Flushing must not commit the real response: the body is not stored yet. */
    @Override
    public void flushBuffer() {
        if (writer != null) {
            writer.flush();
        }
    }

    @Override
    public void resetBuffer() {
        if (writer != null) {
            writer.flush();
        }
        buffer.reset();
    }

    @Override
    public void reset() {
        super.reset();
        resetBuffer();
        status = SC_OK;
    }
}
