package dev.idempotency.demo.handwrittencheck;

import java.io.BufferedReader;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.nio.charset.Charset;
import java.nio.charset.StandardCharsets;
import javax.servlet.ReadListener;
import javax.servlet.ServletInputStream;
import javax.servlet.http.HttpServletRequest;
import javax.servlet.http.HttpServletRequestWrapper;

/**
 * The request with its body read up front: the filter needs the bytes for the fingerprint before the application
 * runs, and the application must still be able to read them.
 */
final class BufferedRequest extends HttpServletRequestWrapper {

    private final byte[] body;

    BufferedRequest(HttpServletRequest request) throws IOException {
        super(request);
        this.body = readAll(request.getInputStream(), request.getContentLength());
    }

    byte[] body() {
        return body;
    }

    @Override
    public ServletInputStream getInputStream() {
        final ByteArrayInputStream in = new ByteArrayInputStream(body);
        return new ServletInputStream() {
            @Override
            public int read() {
                return in.read();
            }

            @Override
            public int read(byte[] b, int off, int len) {
                return in.read(b, off, len);
            }

            @Override
            public boolean isFinished() {
                return in.available() == 0;
            }

            @Override
            public boolean isReady() {
                return true;
            }

            @Override
            public void setReadListener(ReadListener listener) {
                throw new IllegalStateException("no async I/O on a buffered request");
            }
        };
    }

    @Override
    public BufferedReader getReader() {
        String encoding = getCharacterEncoding();
        // ISO-8859-1 is the servlet specification's default when the request names no charset.
        Charset charset = encoding == null ? StandardCharsets.ISO_8859_1 : Charset.forName(encoding);
        return new BufferedReader(new InputStreamReader(getInputStream(), charset));
    }

    private static byte[] readAll(InputStream in, int contentLength) throws IOException {
        ByteArrayOutputStream out = new ByteArrayOutputStream(contentLength > 0 ? contentLength : 256);
        byte[] chunk = new byte[8192];
        for (int n; (n = in.read(chunk)) != -1; ) {
            out.write(chunk, 0, n);
        }
        return out.toByteArray();
    }
}
