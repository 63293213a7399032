package dev.idempotency.agent.core.gate;

import java.io.IOException;
import java.io.OutputStream;
import java.util.Arrays;

/**
 * The response body, held in memory up to a limit so it can be recorded before the client sees it. Past the limit it
 * switches once to streaming straight to the client.
 */
public final class BoundedResponseBody {
    /** Called once, before the first byte streams: records that the response will not be kept, returns the client stream. */
    public interface StreamingStart {
        OutputStream beginStreaming(String reason) throws IOException;
    }

    public static final String TOO_LARGE = "too-large";

    private final long limit;
    private final StreamingStart streamingStart;
    private byte[] buffer = new byte[256];
    private int count;
    private OutputStream streaming;

    public BoundedResponseBody(long limit, StreamingStart streamingStart) {
        this.limit = limit;
        this.streamingStart = streamingStart;
    }

    public void write(int b) throws IOException {
        if (streaming == null && count + 1 > limit) startStreaming(TOO_LARGE);
        if (streaming != null) {
            streaming.write(b);
            return;
        }
        ensureCapacity(count + 1);
        buffer[count++] = (byte) b;
    }

    public void write(byte[] bytes, int offset, int length) throws IOException {
        if (streaming == null && (long) count + length > limit) startStreaming(TOO_LARGE);
        if (streaming != null) {
            streaming.write(bytes, offset, length);
            return;
        }
        ensureCapacity(count + length);
        System.arraycopy(bytes, offset, buffer, count, length);
        count += length;
    }

    public void startStreaming(String reason) throws IOException {
        if (streaming != null) return;
        OutputStream out = streamingStart.beginStreaming(reason);
        out.write(buffer, 0, count);
        streaming = out;
        buffer = null;
        count = 0;
    }

    public void flushStream() throws IOException {
        if (streaming != null) streaming.flush();
    }

    public void reset() {
        if (streaming == null) count = 0;
    }

    public boolean isStreaming() {
        return streaming != null;
    }

    /**
     * The body, taken once the response is complete. The buffer is handed over (trimmed when it is larger), never kept
     * beside a copy: a keyed request holds one copy of its response.
     */
    public byte[] bytes() {
        if (streaming != null) return new byte[0];
        if (buffer.length != count) buffer = Arrays.copyOf(buffer, count);
        return buffer;
    }

    /** The body as an output stream, for transports that write through one. */
    public java.io.OutputStream asOutputStream() {
        return new java.io.OutputStream() {
            @Override public void write(int b) throws IOException { BoundedResponseBody.this.write(b); }
            @Override public void write(byte[] b, int off, int len) throws IOException { BoundedResponseBody.this.write(b, off, len); }
        };
    }

    private void ensureCapacity(int needed) {
        if (needed <= buffer.length) return;
        int size = (int) Math.min(Math.max(needed, buffer.length * 2L), Math.max(needed, limit));
        buffer = Arrays.copyOf(buffer, size);
    }
}
