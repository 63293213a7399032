package dev.idempotency.agent.core.protocol;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;

/** Reads a request body into memory, refusing to hold more than a limit. */
public final class BoundedBody {
    /** The body is larger than the limit; nothing beyond the limit was kept. */
    public static final class TooLargeException extends IOException {
        public TooLargeException(long limit) {
            super("request body exceeds " + limit + " bytes");
        }
    }

    private BoundedBody() {
    }

    /**
     * @param declaredLength the Content-Length, or -1: a body of known length is read straight into an array of its
     *                       size, so the request holds one copy of it
     */
    public static byte[] read(InputStream in, long limit, long declaredLength) throws IOException {
        if (declaredLength > limit) throw new TooLargeException(limit);
        if (declaredLength >= 0) {
            byte[] body = new byte[(int) declaredLength];
            int filled = 0;
            for (int n; filled < body.length && (n = in.read(body, filled, body.length - filled)) != -1; ) filled += n;
            if (filled < body.length) throw new IOException("the body ended after " + filled + " of its " + declaredLength + " bytes");
            if (in.read() != -1) throw new IOException("the body is longer than its Content-Length");
            return body;
        }
        ByteArrayOutputStream out = new ByteArrayOutputStream(1024);
        byte[] buffer = new byte[8192];
        long total = 0;
        for (int n; (n = in.read(buffer)) != -1; ) {
            total += n;
            if (total > limit) throw new TooLargeException(limit);
            out.write(buffer, 0, n);
        }
        return out.toByteArray();
    }
}
