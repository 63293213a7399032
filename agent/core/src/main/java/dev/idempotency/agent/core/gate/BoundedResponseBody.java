package dev.idempotency.agent.core.gate;

import java.io.IOException;
import java.io.OutputStream;
import java.util.Arrays;

/**
 * The response body, held in memory up to a limit so it can be recorded before the client sees it. Past the limit, or
 * when the agent's memory budget cannot hold more, it switches once to streaming straight to the client.
 */
public final class BoundedResponseBody {
    /** Called once, before the first byte streams: records that the response will not be kept, returns the client stream. */
    public interface StreamingStart {
        OutputStream beginStreaming(String reason) throws IOException;
    }

    public static final String TOO_LARGE = "too-large";
    public static final String OVER_BUDGET = "memory-budget";
    private static final int FIRST_CAPACITY = 256;

    private final long limit;
    private final StreamingStart streamingStart;
    /** The buffer's capacity, charged to the agent's memory budget as it grows. */
    private final MemoryBudget.Charge memory;
    private byte[] buffer;
    private int count;
    private OutputStream streaming;
    /** The exchange ended: what the application still writes goes nowhere (it was never sent before either). */
    private volatile boolean ended;

    public BoundedResponseBody(long limit, StreamingStart streamingStart, MemoryBudget budget) {
        this.limit = limit;
        this.streamingStart = streamingStart;
        this.memory = budget.open().heldBy(this);
        this.buffer = memory.grow(FIRST_CAPACITY) ? new byte[FIRST_CAPACITY] : new byte[0];
    }

    public void write(int b) throws IOException {
        if (ended && streaming == null) return;
        if (streaming == null && count + 1 > limit) startStreaming(TOO_LARGE);
        if (streaming == null && !ensureCapacity(count + 1)) startStreaming(OVER_BUDGET);
        if (streaming != null) {
            streaming.write(b);
            return;
        }
        buffer[count++] = (byte) b;
    }

    public void write(byte[] bytes, int offset, int length) throws IOException {
        if (ended && streaming == null) return;
        if (streaming == null && (long) count + length > limit) startStreaming(TOO_LARGE);
        if (streaming == null && !ensureCapacity(count + length)) startStreaming(OVER_BUDGET);
        if (streaming != null) {
            streaming.write(bytes, offset, length);
            return;
        }
        System.arraycopy(bytes, offset, buffer, count, length);
        count += length;
    }

    public void startStreaming(String reason) throws IOException {
        if (streaming != null) return;
        OutputStream out = streamingStart.beginStreaming(reason);
        // streaming from here on, though the client may fail the first write: the response was recorded as not kept,
        // and the exchange must not end it a second time
        streaming = out;
        try {
            out.write(buffer, 0, count);
        } finally {
            buffer = null;
            count = 0;
            memory.release();
        }
    }

    /** The exchange is over: the buffer no longer counts against the memory budget. */
    public void releaseMemory() {
        ended = true;
        memory.release();
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

    /** False when the budget cannot hold the larger buffer; nothing changes then. */
    private boolean ensureCapacity(int needed) {
        if (needed <= buffer.length) return true;
        int size = (int) Math.min(Math.max(needed, buffer.length * 2L), Math.max(needed, limit));
        if (!memory.grow(size - buffer.length)) return false;
        buffer = Arrays.copyOf(buffer, size);
        return true;
    }
}
