package dev.idempotency.demo.handwritten;

import java.io.BufferedReader;
import java.io.ByteArrayInputStream;
import java.io.InputStreamReader;
import java.io.UnsupportedEncodingException;
import javax.servlet.ReadListener;
import javax.servlet.ServletInputStream;
import javax.servlet.http.HttpServletRequest;
import javax.servlet.http.HttpServletRequestWrapper;

/**
 * The request with its body read already (for the fingerprint): the application reads the same bytes again.
 * Form parameters of a urlencoded body are not parsed from them (the container read the stream, not us): the
 * endpoints behind this filter take JSON.
 */
final class BufferedRequest extends HttpServletRequestWrapper {
    private final byte[] body;

    BufferedRequest(HttpServletRequest request, byte[] body) {
        super(request);
        this.body = body;
    }

    @Override
    public ServletInputStream getInputStream() {
        final ByteArrayInputStream in = new ByteArrayInputStream(body);
        return new ServletInputStream() {
            @Override public int read() { return in.read(); }
            @Override public int read(byte[] b, int off, int len) { return in.read(b, off, len); }
            @Override public int available() { return in.available(); }
            @Override public boolean isFinished() { return in.available() == 0; }
            @Override public boolean isReady() { return true; }
            @Override public void setReadListener(ReadListener listener) {
                throw new IllegalStateException("the idempotency filter does not support async I/O");
            }
        };
    }

    @Override
    public BufferedReader getReader() throws UnsupportedEncodingException {
        String charset = getCharacterEncoding();
        return new BufferedReader(new InputStreamReader(new ByteArrayInputStream(body), charset == null ? "ISO-8859-1" : charset));
    }
}
