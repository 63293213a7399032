package dev.idempotency.agent.core.protocol;

import java.io.ByteArrayOutputStream;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;

/**
 * The name/value pairs of an {@code application/x-www-form-urlencoded} text (a form body or a query string), decoded
 * to bytes and kept in the order they were sent. Decoding to bytes first keeps the fingerprint independent of any
 * character set; a component with a malformed {@code %} escape keeps its raw bytes and says so, so that it never
 * looks like the well-formed spelling of the same text ({@code %zz} is not {@code %25zz}).
 */
public final class UrlEncoded {

    /** One decoded component (a name or a value). */
    public static final class Component {
        private final byte[] bytes;
        private final boolean malformed;

        Component(byte[] bytes, boolean malformed) {
            this.bytes = bytes;
            this.malformed = malformed;
        }

        /** The decoded bytes, or the raw bytes when {@link #malformed()}. */
        public byte[] bytes() { return bytes; }

        public boolean malformed() { return malformed; }
    }

    public static final class Pair {
        private final Component name;
        private final Component value;

        Pair(Component name, Component value) {
            this.name = name;
            this.value = value;
        }

        public Component name() { return name; }

        public Component value() { return value; }
    }

    private UrlEncoded() {
    }

    public static List<Pair> parse(byte[] text) {
        return text == null ? Collections.<Pair>emptyList() : parse(text, 0, text.length);
    }

    public static List<Pair> parse(byte[] text, int offset, int length) {
        List<Pair> pairs = new ArrayList<>();
        int end = offset + length;
        int start = offset;
        while (start <= end) {
            int amp = indexOf(text, (byte) '&', start, end);
            if (amp < 0) amp = end;
            if (amp > start) {
                int eq = indexOf(text, (byte) '=', start, amp);
                Component name = decode(text, start, eq < 0 ? amp : eq);
                Component value = eq < 0 ? new Component(new byte[0], false) : decode(text, eq + 1, amp);
                pairs.add(new Pair(name, value));
            }
            start = amp + 1;
        }
        return pairs;
    }

    private static int indexOf(byte[] text, byte b, int from, int to) {
        for (int i = from; i < to; i++) if (text[i] == b) return i;
        return -1;
    }

    private static Component decode(byte[] text, int from, int to) {
        ByteArrayOutputStream out = new ByteArrayOutputStream(to - from);
        for (int i = from; i < to; i++) {
            byte b = text[i];
            if (b == '+') {
                out.write(' ');
            } else if (b == '%') {
                int hi = i + 2 < to ? hex(text[i + 1]) : -1;
                int lo = hi >= 0 ? hex(text[i + 2]) : -1;
                if (lo < 0) return new Component(java.util.Arrays.copyOfRange(text, from, to), true);
                out.write((hi << 4) | lo);
                i += 2;
            } else {
                out.write(b);
            }
        }
        return new Component(out.toByteArray(), false);
    }

    private static int hex(byte b) {
        if (b >= '0' && b <= '9') return b - '0';
        if (b >= 'a' && b <= 'f') return b - 'a' + 10;
        if (b >= 'A' && b <= 'F') return b - 'A' + 10;
        return -1;
    }
}
