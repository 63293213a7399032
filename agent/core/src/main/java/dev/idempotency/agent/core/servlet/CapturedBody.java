package dev.idempotency.agent.core.servlet;

import java.io.IOException;
import java.io.OutputStream;
import java.util.Arrays;

/**
 * The response body, held in memory up to a limit so it can be recorded before the client sees it. Past the limit it
 * switches once to streaming straight to the client.
 */
final class CapturedBody {
    /** Called once, before the first byte streams: records that the response will not be kept, returns the client stream. */
    interface StreamingStart {
        OutputStream beginStreaming(String reason) throws IOException;
    }

    static final String TOO_LARGE = "too-large";

    private final long limit;
    private final StreamingStart streamingStart;
    private byte[] buffer = new byte[256];
    private int count;
    private OutputStream streaming;

    CapturedBody(long limit, StreamingStart streamingStart) {
        this.limit = limit;
        this.streamingStart = streamingStart;
    }

    void write(int b) throws IOException {
        if (streaming == null && count + 1 > limit) startStreaming(TOO_LARGE);
        if (streaming != null) {
            streaming.write(b);
            return;
        }
        ensureCapacity(count + 1);
        buffer[count++] = (byte) b;
    }

    void write(byte[] bytes, int offset, int length) throws IOException {
        if (streaming == null && (long) count + length > limit) startStreaming(TOO_LARGE);
        if (streaming != null) {
            streaming.write(bytes, offset, length);
            return;
        }
        ensureCapacity(count + length);
        System.arraycopy(bytes, offset, buffer, count, length);
        count += length;
    }

    void startStreaming(String reason) throws IOException {
        if (streaming != null) return;
        OutputStream out = streamingStart.beginStreaming(reason);
        out.write(buffer, 0, count);
        streaming = out;
        buffer = null;
        count = 0;
    }

    void flushStream() throws IOException {
        if (streaming != null) streaming.flush();
    }

    void reset() {
        if (streaming == null) count = 0;
    }

    boolean isStreaming() {
        return streaming != null;
    }

    byte[] bytes() {
        return streaming == null ? Arrays.copyOf(buffer, count) : new byte[0];
    }

    private void ensureCapacity(int needed) {
        if (needed <= buffer.length) return;
        int size = (int) Math.min(Math.max(needed, buffer.length * 2L), Math.max(needed, limit));
        buffer = Arrays.copyOf(buffer, size);
    }
}
