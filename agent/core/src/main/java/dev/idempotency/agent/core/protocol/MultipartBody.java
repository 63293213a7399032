package dev.idempotency.agent.core.protocol;

import dev.idempotency.agent.bootstrap.bridge.CapturedPart;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Locale;

/**
 * A {@code multipart/form-data} body (RFC 7578) split into its parts. Parts are views into the request body, never
 * copies: a keyed request holds one copy of its body.
 */
public final class MultipartBody {

    /** The body is not well-formed multipart. */
    public static final class MalformedException extends Exception {
        MalformedException(String message) {
            super(message);
        }
    }

    private MultipartBody() {
    }

    public static boolean isMultipart(String contentType) {
        return MediaType.is(contentType, "multipart/form-data");
    }

    public static List<CapturedPart> parse(byte[] body, String contentType) throws MalformedException {
        String boundary = MediaType.parameter(contentType, "boundary");
        if (boundary == null || boundary.isEmpty() || boundary.length() > 70) throw new MalformedException("multipart body without a valid boundary");
        byte[] delimiter = ("--" + boundary).getBytes(StandardCharsets.ISO_8859_1);
        int position = indexOf(body, delimiter, 0);
        if (position < 0) throw new MalformedException("multipart body without its boundary");
        List<CapturedPart> parts = new ArrayList<>();
        byte[] nextDelimiter = ("\r\n--" + boundary).getBytes(StandardCharsets.ISO_8859_1);
        while (true) {
            int afterDelimiter = position + delimiter.length;
            if (startsWith(body, afterDelimiter, "--")) return Collections.unmodifiableList(parts);
            int headersStart = skipLineEnd(body, afterDelimiter);
            int headersEnd = indexOf(body, "\r\n\r\n".getBytes(StandardCharsets.ISO_8859_1), headersStart);
            if (headersEnd < 0) throw new MalformedException("multipart part without the end of its headers");
            int contentStart = headersEnd + 4;
            int contentEnd = indexOf(body, nextDelimiter, contentStart);
            if (contentEnd < 0) throw new MalformedException("multipart body without its closing boundary");
            String headerBlock = new String(body, headersStart, headersEnd - headersStart, StandardCharsets.UTF_8);
            parts.add(part(body, headerBlock, headersStart, contentStart, contentEnd - contentStart));
            position = contentEnd + 2;
        }
    }

    private static CapturedPart part(byte[] body, String headerBlock, int headerOffset, int offset, int length) throws MalformedException {
        List<String[]> headers = new ArrayList<>();
        String name = null;
        String fileName = null;
        String contentType = null;
        for (String line : headerBlock.split("\r\n")) {
            if (line.isEmpty()) continue;
            int colon = line.indexOf(':');
            if (colon <= 0) throw new MalformedException("multipart part with a malformed header");
            String headerName = line.substring(0, colon).trim();
            String value = line.substring(colon + 1).trim();
            headers.add(new String[] {headerName, value});
            String lower = headerName.toLowerCase(Locale.ROOT);
            if (lower.equals("content-disposition")) {
                name = dispositionParameter(value, "name");
                fileName = dispositionParameter(value, "filename");
            } else if (lower.equals("content-type")) {
                contentType = value;
            }
        }
        if (name == null) throw new MalformedException("multipart part without a name");
        return new CapturedPart(name, fileName, contentType, Collections.unmodifiableList(headers), body, headerOffset, offset, length);
    }

    /** A parameter of Content-Disposition: quoted (with backslash escapes) or a token. */
    static String dispositionParameter(String disposition, String parameter) {
        int i = 0;
        int n = disposition.length();
        while (i < n) {
            int semicolon = disposition.indexOf(';', i);
            if (semicolon < 0) return null;
            i = semicolon + 1;
            while (i < n && disposition.charAt(i) == ' ') i++;
            int eq = disposition.indexOf('=', i);
            if (eq < 0) return null;
            String found = disposition.substring(i, eq).trim();
            i = eq + 1;
            StringBuilder value = new StringBuilder();
            if (i < n && disposition.charAt(i) == '"') {
                for (i++; i < n && disposition.charAt(i) != '"'; i++) {
                    char c = disposition.charAt(i);
                    if (c == '\\' && i + 1 < n) c = disposition.charAt(++i);
                    value.append(c);
                }
                i++;
            } else {
                while (i < n && disposition.charAt(i) != ';') value.append(disposition.charAt(i++));
            }
            if (found.equalsIgnoreCase(parameter)) return value.toString().trim();
        }
        return null;
    }

    private static int skipLineEnd(byte[] body, int from) throws MalformedException {
        int i = from;
        while (i < body.length && (body[i] == ' ' || body[i] == '\t')) i++;
        if (i + 1 < body.length && body[i] == '\r' && body[i + 1] == '\n') return i + 2;
        throw new MalformedException("multipart boundary not followed by a line end");
    }

    private static boolean startsWith(byte[] body, int at, String text) {
        if (at + text.length() > body.length) return false;
        for (int i = 0; i < text.length(); i++) if (body[at + i] != text.charAt(i)) return false;
        return true;
    }

    static int indexOf(byte[] haystack, byte[] needle, int from) {
        outer:
        for (int i = Math.max(0, from); i <= haystack.length - needle.length; i++) {
            for (int j = 0; j < needle.length; j++) if (haystack[i + j] != needle[j]) continue outer;
            return i;
        }
        return -1;
    }
}
