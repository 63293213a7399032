package dev.idempotency.agent.core.protocol;

import dev.idempotency.agent.bootstrap.bridge.CapturedPart;

import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * SHA-256 of the method, the normalised path, the query and the payload in canonical form: strict UTF-8 JSON with
 * sorted keys and no insignificant whitespace (numbers by value, {@link CanonicalJson}), query strings and form bodies
 * as their decoded pairs sorted by name only (a name's values keep their order), multipart bodies as their parts
 * (every part header as sent, bytes; not the boundary), anything else as raw bytes with the charset it names.
 * The same request retried gives the same fingerprint; anything the application can observe changed gives another.
 */
public final class RequestFingerprint {

    private RequestFingerprint() {
    }

    /**
     * @param path the normalised path ({@link RequestPath#normalise})
     * @param query the raw query string, or null
     */
    public static String of(String method, String path, String query, String contentType, byte[] body) {
        List<CapturedPart> parts = null;
        if (MultipartBody.isMultipart(contentType)) {
            try {
                parts = MultipartBody.parse(body, contentType);
            } catch (MultipartBody.MalformedException e) {
                // fingerprinted as raw bytes; the gate refuses such a body anyway
            }
        }
        return of(method, path, query, contentType, body, parts);
    }

    /** @param parts the body's multipart parts when the caller has parsed them already, else null */
    public static String of(String method, String path, String query, String contentType, byte[] body, List<CapturedPart> parts) {
        MessageDigest sha = sha256();
        field(sha, method.getBytes(StandardCharsets.US_ASCII));
        field(sha, path.getBytes(StandardCharsets.UTF_8));
        field(sha, canonicalPairs(UrlEncoded.parse(query == null ? null : query.getBytes(StandardCharsets.UTF_8))));
        // the client's charset says what the bytes mean (the application's own setCharacterEncoding comes later)
        String charset = charset(contentType);
        if (body.length > 0 && isJson(contentType)) {
            byte[] canonical = charset == null || charset.equals("utf-8") ? CanonicalJson.of(body) : null;
            if (canonical != null) return finish(sha, "json", canonical);
        } else if (FormBody.isForm(contentType)) {
            return finish(sha, "form;" + (charset == null ? "" : charset), canonicalPairs(UrlEncoded.parse(body)));
        } else if (parts != null) {
            field(sha, "multipart".getBytes(StandardCharsets.US_ASCII));
            multipart(sha, parts, body);
            return hex(sha.digest());
        }
        // getReader() decodes by the charset: the same bytes in another one are other characters
        String kind = "raw;" + (contentType == null ? "" : MediaType.essence(contentType));
        return finish(sha, charset == null ? kind : kind + ";charset=" + charset, body);
    }

    /** The Content-Type's charset parameter in lower case, or null. */
    private static String charset(String contentType) {
        String charset = MediaType.parameter(contentType, "charset");
        return charset == null ? null : charset.trim().toLowerCase(Locale.ROOT);
    }

    private static String finish(MessageDigest sha, String kind, byte[] payload) {
        field(sha, kind.getBytes(StandardCharsets.US_ASCII));
        field(sha, payload);
        return hex(sha.digest());
    }

    static boolean isJson(String contentType) {
        if (contentType == null) return false;
        String type = MediaType.essence(contentType);
        return type.equals("application/json") || type.endsWith("+json");
    }

    private static final byte[] NO_PAIRS = new byte[0];

    /**
     * Pairs sorted by name only, stably: the order of different names does not matter, the order of a name's values
     * does ({@code item=A&item=B} is not {@code item=B&item=A}). Each component says whether it was well-formed.
     */
    static byte[] canonicalPairs(List<UrlEncoded.Pair> pairs) {
        if (pairs.isEmpty()) return NO_PAIRS; // most keyed requests carry no query
        List<UrlEncoded.Pair> sorted = new ArrayList<>(pairs);
        sorted.sort((a, b) -> compare(a.name(), b.name()));
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        for (UrlEncoded.Pair pair : sorted) {
            writeComponent(out, pair.name());
            writeComponent(out, pair.value());
        }
        return out.toByteArray();
    }

    private static int compare(UrlEncoded.Component a, UrlEncoded.Component b) {
        if (a.malformed() != b.malformed()) return a.malformed() ? 1 : -1;
        return compareBytes(a.bytes(), b.bytes());
    }

    private static int compareBytes(byte[] a, byte[] b) {
        for (int i = 0; i < Math.min(a.length, b.length); i++) {
            int c = (a[i] & 0xff) - (b[i] & 0xff);
            if (c != 0) return c;
        }
        return a.length - b.length;
    }

    private static void writeComponent(ByteArrayOutputStream out, UrlEncoded.Component c) {
        out.write(c.malformed() ? 1 : 0);
        writeLengthPrefixed(out, c.bytes());
    }

    /**
     * Parts sorted stably by name as the application reads it (the order of a name's parts counts); each part's
     * headers as sent and its bytes. The boundary does not count: clients choose it afresh for every attempt.
     */
    private static void multipart(MessageDigest sha, List<CapturedPart> parts, byte[] body) {
        List<CapturedPart> sorted = new ArrayList<>(parts);
        sorted.sort((a, b) -> compareBytes(a.name().getBytes(StandardCharsets.UTF_8), b.name().getBytes(StandardCharsets.UTF_8)));
        field(sha, String.valueOf(sorted.size()).getBytes(StandardCharsets.US_ASCII));
        for (CapturedPart part : sorted) {
            field(sha, part.name().getBytes(StandardCharsets.UTF_8));
            partHeaders(sha, body, part.headerOffset(), part.offset() - 4);
            sha.update(lengthPrefix(part.size()));
            sha.update(body, part.offset(), part.size());
        }
    }

    /**
     * Every header line of a part, in order: its name in ASCII lower case, its value byte for byte (Part.getHeader
     * shows both; a byte that is not UTF-8 decodes to U+FFFD, which many different bytes do), both without the spaces
     * and tabs around them.
     */
    private static void partHeaders(MessageDigest sha, byte[] body, int from, int to) {
        for (int line = from; line < to; ) {
            int end = line;
            while (end < to && !(body[end] == '\r' && end + 1 < to && body[end + 1] == '\n')) end++;
            if (end > line) {
                int colon = line;
                while (colon < end && body[colon] != ':') colon++;
                int nameStart = skipBlanks(body, line, colon);
                int nameEnd = trimBlanks(body, nameStart, colon);
                byte[] name = new byte[nameEnd - nameStart];
                for (int i = 0; i < name.length; i++) {
                    byte b = body[nameStart + i];
                    name[i] = b >= 'A' && b <= 'Z' ? (byte) (b + ('a' - 'A')) : b;
                }
                sha.update((byte) 1);
                field(sha, name);
                int valueStart = skipBlanks(body, Math.min(colon + 1, end), end);
                int valueEnd = trimBlanks(body, valueStart, end);
                sha.update(lengthPrefix(valueEnd - valueStart));
                sha.update(body, valueStart, valueEnd - valueStart);
            }
            line = end + 2;
        }
        sha.update((byte) 0);
    }

    private static int skipBlanks(byte[] body, int from, int to) {
        while (from < to && (body[from] == ' ' || body[from] == '\t')) from++;
        return from;
    }

    private static int trimBlanks(byte[] body, int from, int to) {
        while (to > from && (body[to - 1] == ' ' || body[to - 1] == '\t')) to--;
        return to;
    }

    private static void field(MessageDigest sha, byte[] bytes) {
        sha.update(lengthPrefix(bytes.length));
        sha.update(bytes);
    }

    private static void writeLengthPrefixed(ByteArrayOutputStream out, byte[] bytes) {
        out.write(lengthPrefix(bytes.length), 0, 4);
        out.write(bytes, 0, bytes.length);
    }

    private static byte[] lengthPrefix(int length) {
        return new byte[] {(byte) (length >>> 24), (byte) (length >>> 16), (byte) (length >>> 8), (byte) length};
    }

    public static String sha256Hex(String text) {
        return hex(sha256().digest(text.getBytes(StandardCharsets.UTF_8)));
    }

    /** Never used itself, only cloned: getInstance looks the provider up anew each time (it showed in profiles). */
    private static final MessageDigest SHA_256 = lookUpSha256();

    private static MessageDigest sha256() {
        try {
            return (MessageDigest) SHA_256.clone();
        } catch (CloneNotSupportedException e) {
            return lookUpSha256(); // a provider whose digest cannot be cloned
        }
    }

    private static MessageDigest lookUpSha256() {
        try {
            return MessageDigest.getInstance("SHA-256");
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("SHA-256 is required of every JVM", e);
        }
    }

    private static final char[] HEX_DIGITS = "0123456789abcdef".toCharArray();

    static String hex(byte[] bytes) {
        char[] digits = HEX_DIGITS;
        char[] out = new char[bytes.length * 2];
        for (int i = 0; i < bytes.length; i++) {
            out[2 * i] = digits[(bytes[i] >> 4) & 0xf];
            out[2 * i + 1] = digits[bytes[i] & 0xf];
        }
        return new String(out);
    }
}
