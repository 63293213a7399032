package dev.idempotency.agent.servlet.javax;

import java.io.IOException;
import javax.servlet.ReadListener;
import javax.servlet.ServletInputStream;

/** The request body, from memory. */
final class ReplayingInputStream extends ServletInputStream {
    private final byte[] body;
    private int position;

    ReplayingInputStream(byte[] body) {
        this.body = body;
    }

    @Override
    public int read() {
        return position < body.length ? body[position++] & 0xff : -1;
    }

    @Override
    public int read(byte[] b, int off, int len) {
        if (len == 0) return 0;
        if (position >= body.length) return -1;
        int n = Math.min(len, body.length - position);
        System.arraycopy(body, position, b, off, n);
        position += n;
        return n;
    }

    @Override public int available() { return body.length - position; }

    @Override public boolean isFinished() { return position >= body.length; }

    @Override public boolean isReady() { return true; }

    @Override
    public void setReadListener(ReadListener listener) {
        try {
            if (!isFinished()) listener.onDataAvailable();
            listener.onAllDataRead();
        } catch (IOException e) {
            listener.onError(e);
        }
    }
}
