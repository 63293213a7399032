package dev.idempotency.store.redis;

import dev.idempotency.store.StoreDataException;
import dev.idempotency.store.StoredResponse;
import dev.idempotency.store.StoredResponse.Header;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;

/**
 * A stored response as three hash fields: the status in decimal, the headers (a count, then each name and value as a
 * length-prefixed UTF-8 string, in order, repeats kept), and the body's raw bytes.
 */
final class ResponseCodec {
    private static final int MAX_HEADERS = 10_000;

    private ResponseCodec() {
    }

    static byte[] status(StoredResponse response) {
        return KeyLayout.bytes(Integer.toString(response.status()));
    }

    static byte[] headers(StoredResponse response) {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        try (DataOutputStream out = new DataOutputStream(bytes)) {
            out.writeInt(response.headers().size());
            for (Header h : response.headers()) {
                writeString(out, h.name());
                writeString(out, h.value());
            }
        } catch (IOException e) {
            throw new IllegalStateException("writing to memory cannot fail", e);
        }
        return bytes.toByteArray();
    }

    /** The response the three fields hold; a {@link StoreDataException} naming {@code where} when they do not. */
    static StoredResponse decode(byte[] status, byte[] headers, byte[] body, String where) {
        if (status == null || headers == null || body == null) {
            throw new StoreDataException(where + " is completed but its stored response is incomplete", null);
        }
        try {
            return new StoredResponse(Integer.parseInt(new String(status, StandardCharsets.US_ASCII)),
                    headers(headers), body);
        } catch (IOException | IllegalArgumentException e) {
            throw new StoreDataException(where + " holds a stored response this version cannot read: "
                    + e.getMessage(), e);
        }
    }

    private static List<Header> headers(byte[] encoded) throws IOException {
        DataInputStream in = new DataInputStream(new ByteArrayInputStream(encoded));
        int count = in.readInt();
        if (count < 0 || count > MAX_HEADERS) throw new IOException("header count " + count);
        List<Header> headers = new ArrayList<>(count);
        for (int i = 0; i < count; i++) headers.add(new Header(readString(in), readString(in)));
        if (in.available() > 0) throw new IOException(in.available() + " bytes after the headers");
        return headers;
    }

    private static void writeString(DataOutputStream out, String s) throws IOException {
        byte[] b = s.getBytes(StandardCharsets.UTF_8);
        out.writeInt(b.length);
        out.write(b);
    }

    private static String readString(DataInputStream in) throws IOException {
        int length = in.readInt();
        if (length < 0 || length > in.available()) throw new IOException("header of " + length + " bytes");
        byte[] b = new byte[length];
        in.readFully(b);
        return new String(b, StandardCharsets.UTF_8);
    }
}
