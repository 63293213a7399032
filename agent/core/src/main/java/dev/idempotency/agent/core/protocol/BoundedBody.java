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

    public static byte[] read(InputStream in, long limit) throws IOException {
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
