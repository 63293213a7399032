package dev.idempotency.agent.core.protocol;

import com.fasterxml.jackson.core.JsonFactory;
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
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;

/**
 * SHA-256 of the method, the path, the query and the payload in canonical form: JSON with sorted keys and no
 * insignificant whitespace (numbers by value), form bodies as their sorted parameters, anything else as raw bytes.
 * The same request retried gives the same fingerprint; any change of meaning gives another.
 */
public final class RequestFingerprint {
    private static final JsonFactory JSON = JsonFactory.builder().enable(StreamReadFeature.STRICT_DUPLICATE_DETECTION).build();

    private RequestFingerprint() {
    }

    public static String of(String method, String path, String query, String contentType, String charset, byte[] body) {
        MessageDigest sha = sha256();
        field(sha, method.getBytes(StandardCharsets.US_ASCII));
        field(sha, path.getBytes(StandardCharsets.UTF_8));
        field(sha, canonicalQuery(query).getBytes(StandardCharsets.UTF_8));
        byte[] payload = body;
        String kind = "raw";
        if (body.length > 0 && isJson(contentType)) {
            byte[] canonical = canonicalJson(body);
            if (canonical != null) {
                payload = canonical;
                kind = "json";
            }
        } else if (FormBody.isForm(contentType)) {
            payload = canonicalForm(FormBody.parse(null, body, charset));
            kind = "form";
        }
        field(sha, kind.getBytes(StandardCharsets.US_ASCII));
        field(sha, payload);
        return hex(sha.digest());
    }

    static boolean isJson(String contentType) {
        if (contentType == null) return false;
        String type = contentType.toLowerCase(Locale.ROOT);
        int semicolon = type.indexOf(';');
        if (semicolon >= 0) type = type.substring(0, semicolon);
        type = type.trim();
        return type.equals("application/json") || type.endsWith("+json");
    }

    static String canonicalQuery(String query) {
        if (query == null || query.isEmpty()) return "";
        List<String> pairs = new ArrayList<>(Arrays.asList(query.split("&")));
        pairs.removeIf(String::isEmpty);
        java.util.Collections.sort(pairs);
        return String.join("&", pairs);
    }

    private static byte[] canonicalForm(Map<String, String[]> parameters) {
        TreeMap<String, List<String>> sorted = new TreeMap<>();
        for (Map.Entry<String, String[]> e : parameters.entrySet()) {
            List<String> values = new ArrayList<>(Arrays.asList(e.getValue()));
            java.util.Collections.sort(values);
            sorted.put(e.getKey(), values);
        }
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        for (Map.Entry<String, List<String>> e : sorted.entrySet()) {
            for (String v : e.getValue()) {
                byte[] name = e.getKey().getBytes(StandardCharsets.UTF_8);
                byte[] value = v.getBytes(StandardCharsets.UTF_8);
                writeLengthPrefixed(out, name);
                writeLengthPrefixed(out, value);
            }
        }
        return out.toByteArray();
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
        sha.update((byte) (bytes.length >>> 24));
        sha.update((byte) (bytes.length >>> 16));
        sha.update((byte) (bytes.length >>> 8));
        sha.update((byte) bytes.length);
        sha.update(bytes);
    }

    private static void writeLengthPrefixed(ByteArrayOutputStream out, byte[] bytes) {
        out.write(bytes.length >>> 24);
        out.write(bytes.length >>> 16);
        out.write(bytes.length >>> 8);
        out.write(bytes.length);
        out.write(bytes, 0, bytes.length);
    }

    public static String sha256Hex(String text) {
        return hex(sha256().digest(text.getBytes(StandardCharsets.UTF_8)));
    }

    private static MessageDigest sha256() {
        try {
            return MessageDigest.getInstance("SHA-256");
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("SHA-256 is required of every JVM", e);
        }
    }

    private static String hex(byte[] bytes) {
        char[] digits = "0123456789abcdef".toCharArray();
        char[] out = new char[bytes.length * 2];
        for (int i = 0; i < bytes.length; i++) {
            out[2 * i] = digits[(bytes[i] >> 4) & 0xf];
            out[2 * i + 1] = digits[bytes[i] & 0xf];
        }
        return new String(out);
    }
}
