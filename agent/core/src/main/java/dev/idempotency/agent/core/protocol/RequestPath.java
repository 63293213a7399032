package dev.idempotency.agent.core.protocol;

import java.io.ByteArrayOutputStream;
import java.nio.ByteBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;

/**
 * The request path as the application's mapping sees it, for path patterns and the fingerprint: path parameters
 * ({@code ;jsessionid=...}) removed, percent escapes decoded, {@code .} and {@code ..} resolved and empty segments
 * dropped. So a retry through {@code /pay;jsessionid=1} is the same request as {@code /pay}, and {@code /%70ay} or
 * {@code /x/../pay} cannot slip past a pattern written for {@code /pay}. A segment that cannot be decoded (malformed,
 * not UTF-8, or hiding a slash: {@code %2F} does not start a new segment) stays as sent; in a decoded segment a
 * literal {@code %} is written {@code %25}, so that the two never look alike ({@code a%2Fb} kept is not
 * {@code a%252Fb} decoded).
 */
public final class RequestPath {
    private RequestPath() {
    }

    public static String normalise(String uri) {
        if (uri == null || uri.isEmpty()) return "/";
        return alreadyNormal(uri) ? uri : bySegments(uri);
    }

    /**
     * Whether {@code uri} is its own normal form, as almost every request's is: absolute, nothing to decode or remove,
     * no empty, {@code .} or {@code ..} segment. Saves splitting it (a few microseconds of each keyed request).
     */
    static boolean alreadyNormal(String uri) {
        int n = uri.length();
        if (uri.charAt(0) != '/') return false;
        for (int i = 1; i < n; i++) {
            char c = uri.charAt(i);
            if (c == ';' || c == '%') return false;
            char before = uri.charAt(i - 1);
            if (before != '/') continue;
            if (c == '/') return false;
            if (c == '.') {
                int end = i + 1 < n && uri.charAt(i + 1) == '.' ? i + 2 : i + 1;
                if (end == n || uri.charAt(end) == '/') return false;
            }
        }
        return true;
    }

    /** The normal form, segment by segment. Package-private: a test holds {@link #alreadyNormal} to it. */
    static String bySegments(String uri) {
        List<String> segments = new ArrayList<>();
        String[] raw = uri.split("/", -1);
        boolean trailingSlash = false;
        for (int i = 0; i < raw.length; i++) {
            String segment = raw[i];
            int semicolon = segment.indexOf(';');
            if (semicolon >= 0) segment = segment.substring(0, semicolon);
            segment = decode(segment);
            boolean last = i == raw.length - 1;
            if (segment.isEmpty() || segment.equals(".")) {
                trailingSlash = last && i > 0;
            } else if (segment.equals("..")) {
                if (!segments.isEmpty()) segments.remove(segments.size() - 1);
                trailingSlash = last;
            } else {
                segments.add(segment);
                trailingSlash = false;
            }
        }
        StringBuilder path = new StringBuilder();
        for (String s : segments) path.append('/').append(s);
        if (path.length() == 0) return "/";
        if (trailingSlash) path.append('/');
        return path.toString();
    }

    /** Percent-decodes one segment as UTF-8; a segment that is malformed, not UTF-8, or hides a slash stays as sent. */
    private static String decode(String segment) {
        if (segment.indexOf('%') < 0) return segment;
        ByteArrayOutputStream bytes = new ByteArrayOutputStream(segment.length());
        byte[] raw = segment.getBytes(StandardCharsets.UTF_8);
        for (int i = 0; i < raw.length; i++) {
            if (raw[i] != '%') {
                bytes.write(raw[i]);
                continue;
            }
            if (i + 2 >= raw.length) return segment;
            int value = Character.digit(raw[i + 1], 16) << 4 | Character.digit(raw[i + 2], 16);
            if (Character.digit(raw[i + 1], 16) < 0 || Character.digit(raw[i + 2], 16) < 0 || value == '/' || value == '\\' || value == 0) {
                return segment;
            }
            bytes.write(value);
            i += 2;
        }
        try {
            return StandardCharsets.UTF_8.newDecoder().onMalformedInput(CodingErrorAction.REPORT)
                    .onUnmappableCharacter(CodingErrorAction.REPORT).decode(ByteBuffer.wrap(bytes.toByteArray())).toString()
                    .replace("%", "%25");
        } catch (CharacterCodingException e) {
            return segment;
        }
    }
}
