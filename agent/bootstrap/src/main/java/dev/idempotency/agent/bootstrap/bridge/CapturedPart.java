package dev.idempotency.agent.bootstrap.bridge;

import java.io.ByteArrayInputStream;
import java.io.InputStream;
import java.util.List;

/** One part of a captured multipart body: a view into the body's bytes, not a copy. */
public final class CapturedPart {
    private final String name;
    private final String fileName;
    private final String contentType;
    private final List<String[]> headers;
    private final byte[] body;
    private final int headerOffset;
    private final int offset;
    private final int length;

    public CapturedPart(String name, String fileName, String contentType, List<String[]> headers, byte[] body,
                        int headerOffset, int offset, int length) {
        this.name = name;
        this.fileName = fileName;
        this.contentType = contentType;
        this.headers = headers;
        this.body = body;
        this.headerOffset = headerOffset;
        this.offset = offset;
        this.length = length;
    }

    public String name() { return name; }

    /** The submitted file name, or null for a plain field. */
    public String fileName() { return fileName; }

    public String contentType() { return contentType; }

    /** [name, value] pairs, in order. */
    public List<String[]> headers() { return headers; }

    /**
     * Where the part's header block starts in the request body; it ends four bytes (the blank line) before
     * {@link #offset()}. The fingerprint reads the headers as sent: decoded, two different bytes can look the same.
     */
    public int headerOffset() { return headerOffset; }

    /** Where the part's bytes start in the request body. */
    public int offset() { return offset; }

    public int size() { return length; }

    public InputStream open() { return new ByteArrayInputStream(body, offset, length); }

    /** The part's bytes decoded as text, for form fields. */
    public String text(java.nio.charset.Charset charset) { return new String(body, offset, length, charset); }
}
