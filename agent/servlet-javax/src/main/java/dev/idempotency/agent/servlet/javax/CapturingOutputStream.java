package dev.idempotency.agent.servlet.javax;

import dev.idempotency.agent.bootstrap.bridge.ResponseCapture;

import java.io.IOException;
import javax.servlet.ServletOutputStream;
import javax.servlet.WriteListener;

/** The body stream the application writes to; every byte goes to the capture. */
final class CapturingOutputStream extends ServletOutputStream {
    private final ResponseCapture capture;

    CapturingOutputStream(ResponseCapture capture) {
        this.capture = capture;
    }

    @Override public void write(int b) throws IOException { capture.write(b); }

    @Override public void write(byte[] b, int off, int len) throws IOException { capture.write(b, off, len); }

    /** Flushing a buffered body is a no-op: the response leaves only once it is recorded. */
    @Override public void flush() { }

    /** Closing marks nothing: the exchange ends when the servlet (or its async cycle) does. */
    @Override public void close() { }

    @Override public boolean isReady() { return true; }

    @Override
    public void setWriteListener(WriteListener listener) {
        try {
            listener.onWritePossible();
        } catch (IOException e) {
            listener.onError(e);
        }
    }
}
