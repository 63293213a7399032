package dev.idempotency.agent.core.protocol;

import com.fasterxml.jackson.core.JsonFactory;
import dev.idempotency.agent.bootstrap.bridge.CapturedPart;
import com.fasterxml.jackson.core.JsonGenerator;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;
import com.fasterxml.jackson.core.StreamReadFeature;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.math.BigDecimal;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * SHA-256 of the method, the normalised path, the query and the payload in canonical form: JSON with sorted keys and
 * no insignificant whitespace (numbers by value), query strings and form bodies as their decoded pairs sorted by name
 * only (a name's values keep their order), multipart bodies as their parts (names, file names, content types, bytes;
 * not the boundary), anything else as raw bytes.
 * The same request retried gives the same fingerprint; any change of meaning gives another.
 */
public final class RequestFingerprint {
    private static final JsonFactory JSON = JsonFactory.builder().enable(StreamReadFeature.STRICT_DUPLICATE_DETECTION).build();

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
        if (body.length > 0 && isJson(contentType)) {
            byte[] canonical = canonicalJson(body);
            if (canonical != null) return finish(sha, "json", canonical);
        } else if (FormBody.isForm(contentType)) {
            // the client's charset says what the bytes mean (the application's own setCharacterEncoding comes later)
            String charset = MediaType.parameter(contentType, "charset");
            return finish(sha, "form;" + (charset == null ? "" : charset.trim().toLowerCase(java.util.Locale.ROOT)),
                    canonicalPairs(UrlEncoded.parse(body)));
        } else if (parts != null) {
            field(sha, "multipart".getBytes(StandardCharsets.US_ASCII));
            multipart(sha, parts, body);
            return hex(sha.digest());
        }
        return finish(sha, "raw;" + (contentType == null ? "" : MediaType.essence(contentType)), body);
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

    /**
     * Pairs sorted by name only, stably: the order of different names does not matter, the order of a name's values
     * does ({@code item=A&item=B} is not {@code item=B&item=A}). Each component says whether it was well-formed.
     */
    static byte[] canonicalPairs(List<UrlEncoded.Pair> pairs) {
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

    /** Parts sorted stably by name; each part's name, file name, content type and bytes (the boundary does not count). */
    private static void multipart(MessageDigest sha, List<CapturedPart> parts, byte[] body) {
        List<CapturedPart> sorted = new ArrayList<>(parts);
        sorted.sort((a, b) -> compareBytes(a.name().getBytes(StandardCharsets.UTF_8), b.name().getBytes(StandardCharsets.UTF_8)));
        field(sha, String.valueOf(sorted.size()).getBytes(StandardCharsets.US_ASCII));
        for (CapturedPart part : sorted) {
            field(sha, part.name().getBytes(StandardCharsets.UTF_8));
            optionalField(sha, part.fileName());
            optionalField(sha, part.contentType());
            sha.update(lengthPrefix(part.size()));
            sha.update(body, part.offset(), part.size());
        }
    }

    private static void optionalField(MessageDigest sha, String value) {
        sha.update((byte) (value == null ? 0 : 1));
        field(sha, value == null ? new byte[0] : value.getBytes(StandardCharsets.UTF_8));
    }

    /** RFC 8785 style: sorted keys, no whitespace, numbers by value; null when the body is not valid JSON. */
    static byte[] canonicalJson(byte[] body) {
        try (JsonParser parser = JSON.createParser(body)) {
            if (parser.nextToken() == null) return null;
            Object tree = read(parser);
            if (parser.nextToken() != null) return null;
            ByteArrayOutputStream out = new ByteArrayOutputStream(body.length);
            try (JsonGenerator g = JSON.createGenerator(out)) {
                write(g, tree);
            }
            return out.toByteArray();
        } catch (IOException | RuntimeException e) {
            return null;
        }
    }

    private static Object read(JsonParser p) throws IOException {
        JsonToken t = p.currentToken();
        switch (t) {
            case START_OBJECT: {
                TreeMap<String, Object> object = new TreeMap<>();
                while (p.nextToken() == JsonToken.FIELD_NAME) {
                    String name = p.currentName();
                    p.nextToken();
                    object.put(name, read(p));
                }
                return object;
            }
            case START_ARRAY: {
                List<Object> array = new ArrayList<>();
                while (p.nextToken() != JsonToken.END_ARRAY) array.add(read(p));
                return array;
            }
            case VALUE_STRING: return p.getText();
            case VALUE_NUMBER_INT:
            case VALUE_NUMBER_FLOAT: return new BigDecimal(p.getText());
            case VALUE_TRUE: return Boolean.TRUE;
            case VALUE_FALSE: return Boolean.FALSE;
            case VALUE_NULL: return null;
            default: throw new IOException("unexpected token " + t);
        }
    }

    @SuppressWarnings("unchecked")
    private static void write(JsonGenerator g, Object value) throws IOException {
        if (value instanceof Map) {
            g.writeStartObject();
            for (Map.Entry<String, Object> e : ((Map<String, Object>) value).entrySet()) {
                g.writeFieldName(e.getKey());
                write(g, e.getValue());
            }
            g.writeEndObject();
        } else if (value instanceof List) {
            g.writeStartArray();
            for (Object element : (List<Object>) value) write(g, element);
            g.writeEndArray();
        } else if (value instanceof BigDecimal) {
            BigDecimal number = (BigDecimal) value;
            g.writeNumber(number.signum() == 0 ? "0" : number.stripTrailingZeros().toString());
        } else if (value instanceof String) {
            g.writeString((String) value);
        } else if (value instanceof Boolean) {
            g.writeBoolean((Boolean) value);
        } else {
            g.writeNull();
        }
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

    static String hex(byte[] bytes) {
        char[] digits = "0123456789abcdef".toCharArray();
        char[] out = new char[bytes.length * 2];
        for (int i = 0; i < bytes.length; i++) {
            out[2 * i] = digits[(bytes[i] >> 4) & 0xf];
            out[2 * i + 1] = digits[bytes[i] & 0xf];
        }
        return new String(out);
    }
}
