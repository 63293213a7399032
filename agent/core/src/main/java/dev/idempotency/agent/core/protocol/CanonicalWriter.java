package dev.idempotency.agent.core.protocol;

import dev.idempotency.agent.core.protocol.CanonicalJson.CanonicalNumber;
import dev.idempotency.agent.core.protocol.CanonicalJson.JsonObject;
import dev.idempotency.agent.core.protocol.CanonicalJson.Member;

import java.util.Arrays;
import java.util.List;

/**
 * Writes a canonical tree ({@link CanonicalJson#read}) as UTF-8 bytes exactly as Jackson's generator does with its
 * defaults, without one: setting a generator up and closing it cost more than writing a small body. Fingerprints
 * stored before must stay equal, so a string holding a UTF-16 surrogate (whose treatment by the generator is its own)
 * is left to the generator: {@link #write} then answers null.
 */
final class CanonicalWriter {
    private static final byte[] HEX = "0123456789ABCDEF".getBytes(java.nio.charset.StandardCharsets.US_ASCII);
    private static final byte[] TRUE = {'t', 'r', 'u', 'e'};
    private static final byte[] FALSE = {'f', 'a', 'l', 's', 'e'};
    private static final byte[] NULL = {'n', 'u', 'l', 'l'};

    private byte[] buffer;
    private int length;

    private CanonicalWriter(int sizeHint) {
        buffer = new byte[Math.max(16, sizeHint)];
    }

    /** The canonical bytes of {@code tree}, or null when it holds a surrogate. */
    static byte[] write(Object tree, int sizeHint) {
        CanonicalWriter w = new CanonicalWriter(sizeHint);
        return w.value(tree) ? Arrays.copyOf(w.buffer, w.length) : null;
    }

    @SuppressWarnings("unchecked")
    private boolean value(Object value) {
        if (value instanceof JsonObject) {
            put('{');
            boolean first = true;
            for (Member member : ((JsonObject) value).members) {
                if (!first) put(',');
                first = false;
                if (!string(member.name)) return false;
                put(':');
                if (!value(member.value)) return false;
            }
            put('}');
        } else if (value instanceof List) {
            put('[');
            boolean first = true;
            for (Object element : (List<Object>) value) {
                if (!first) put(',');
                first = false;
                if (!value(element)) return false;
            }
            put(']');
        } else if (value instanceof CanonicalNumber) {
            String text = ((CanonicalNumber) value).text;
            room(text.length());
            for (int i = 0; i < text.length(); i++) buffer[length++] = (byte) text.charAt(i); // digits, '-', '.', 'e'
        } else if (value instanceof String) {
            return string((String) value);
        } else if (value instanceof Boolean) {
            put((Boolean) value ? TRUE : FALSE);
        } else {
            put(NULL);
        }
        return true;
    }

    /** A string in quotes, escaped as the generator escapes: '"', '\\' and the control characters only. */
    private boolean string(String s) {
        room(s.length() * 6 + 2); // at most six bytes a char (an escape), three in UTF-8
        buffer[length++] = '"';
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            if (c < 0x80) {
                if (c >= 0x20 && c != '"' && c != '\\') {
                    buffer[length++] = (byte) c;
                } else {
                    escape(c);
                }
            } else if (c < 0x800) {
                buffer[length++] = (byte) (0xc0 | c >> 6);
                buffer[length++] = (byte) (0x80 | c & 0x3f);
            } else if (Character.isSurrogate(c)) {
                return false;
            } else {
                buffer[length++] = (byte) (0xe0 | c >> 12);
                buffer[length++] = (byte) (0x80 | c >> 6 & 0x3f);
                buffer[length++] = (byte) (0x80 | c & 0x3f);
            }
        }
        put('"');
        return true;
    }

    private void escape(char c) {
        buffer[length++] = '\\';
        switch (c) {
            case '"': buffer[length++] = '"'; return;
            case '\\': buffer[length++] = '\\'; return;
            case '\b': buffer[length++] = 'b'; return;
            case '\t': buffer[length++] = 't'; return;
            case '\n': buffer[length++] = 'n'; return;
            case '\f': buffer[length++] = 'f'; return;
            case '\r': buffer[length++] = 'r'; return;
            default:
                buffer[length++] = 'u';
                buffer[length++] = '0';
                buffer[length++] = '0';
                buffer[length++] = HEX[c >> 4];
                buffer[length++] = HEX[c & 0xf];
        }
    }

    private void put(char ascii) {
        room(1);
        buffer[length++] = (byte) ascii;
    }

    private void put(byte[] bytes) {
        room(bytes.length);
        System.arraycopy(bytes, 0, buffer, length, bytes.length);
        length += bytes.length;
    }

    private void room(int more) {
        if (length + more > buffer.length) buffer = Arrays.copyOf(buffer, Math.max(buffer.length * 2, length + more));
    }
}
