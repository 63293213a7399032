package dev.idempotency.agent.core.protocol;

import dev.idempotency.agent.core.protocol.CanonicalJson.CanonicalNumber;
import dev.idempotency.agent.core.protocol.CanonicalJson.Member;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;

/**
 * Reads a JSON body straight from its UTF-8 bytes into the tree {@link CanonicalJson#read} makes with Jackson, without
 * Jackson: setting its parser up and decoding the body to chars first cost a keyed request more than the parse. It
 * decides only what is plainly strict JSON within bounds far below Jackson's limits; anything else (a syntax error, a
 * duplicate name, a deep or long document) is {@link #UNDECIDED} and left to Jackson, which refuses or reads it as
 * before. So every fingerprint stays what it was: where this reader decides, Jackson reads the same tree.
 */
final class JsonTreeReader {
    /** Not read here: Jackson decides. */
    static final Object UNDECIDED = new Object();

    /** Far below Jackson's limits (nesting 1000, numbers 1000 chars, names 50 000, strings 20 000 000). */
    private static final int MAX_DEPTH = 64;
    private static final int MAX_NUMBER_CHARS = 100;
    private static final int MAX_NAME_CHARS = 1000;
    private static final int MAX_STRING_CHARS = 1_000_000;

    private final byte[] in;
    private int at;

    private JsonTreeReader(byte[] in) {
        this.in = in;
    }

    /**
     * @param body any bytes: a body this reader decides is strict UTF-8 without a byte order mark, as only ASCII is
     *             read outside strings, and every sequence in a string is checked ({@link Utf8#sequenceLength})
     * @return the tree, or {@link #UNDECIDED}
     */
    static Object read(byte[] body) {
        JsonTreeReader reader = new JsonTreeReader(body);
        try {
            reader.skipSpace();
            Object tree = reader.value(0);
            reader.skipSpace();
            return reader.at == body.length ? tree : UNDECIDED;
        } catch (Undecided | ArrayIndexOutOfBoundsException e) {
            return UNDECIDED; // past the end: a document cut short
        }
    }

    /** Thrown without a stack: anything this reader leaves to Jackson. */
    private static final class Undecided extends RuntimeException {
        private static final Undecided INSTANCE = new Undecided();

        private Undecided() {
            super(null, null, false, false);
        }
    }

    private static Undecided undecided() {
        return Undecided.INSTANCE;
    }

    private Object value(int depth) {
        if (at >= in.length) throw undecided();
        byte b = in[at];
        switch (b) {
            case '{': return object(depth + 1);
            case '[': return array(depth + 1);
            case '"': return string(MAX_STRING_CHARS);
            case 't': return literal("true", Boolean.TRUE);
            case 'f': return literal("false", Boolean.FALSE);
            case 'n': return literal("null", null);
            default:
                if (b == '-' || (b >= '0' && b <= '9')) return number();
                throw undecided();
        }
    }

    private Object object(int depth) {
        if (depth > MAX_DEPTH) throw undecided();
        at++; // '{'
        List<Member> members = new ArrayList<>();
        skipSpace();
        if (in[at] == '}') {
            at++;
            return new CanonicalJson.JsonObject(members);
        }
        while (true) {
            if (in[at] != '"') throw undecided();
            String name = string(MAX_NAME_CHARS);
            skipSpace();
            if (in[at++] != ':') throw undecided();
            skipSpace();
            members.add(new Member(name, value(depth)));
            skipSpace();
            byte next = in[at++];
            if (next == '}') break;
            if (next != ',') throw undecided();
            skipSpace();
        }
        CanonicalJson.JsonObject object = CanonicalJson.sortedObject(members);
        if (object == null) throw undecided(); // a duplicate name
        return object;
    }

    private List<Object> array(int depth) {
        if (depth > MAX_DEPTH) throw undecided();
        at++; // '['
        List<Object> elements = new ArrayList<>();
        skipSpace();
        if (in[at] == ']') {
            at++;
            return elements;
        }
        while (true) {
            elements.add(value(depth));
            skipSpace();
            byte next = in[at++];
            if (next == ']') return elements;
            if (next != ',') throw undecided();
            skipSpace();
        }
    }

    /** A literal; what follows is checked by its container or by {@link #read} ({@code truex} is left to Jackson). */
    private Object literal(String word, Object value) {
        for (int i = 0; i < word.length(); i++) {
            if (in[at++] != word.charAt(i)) throw undecided();
        }
        return value;
    }

    /** {@code -?(0|[1-9][0-9]*)(.[0-9]+)?([eE][+-]?[0-9]+)?}, by value ({@link JsonNumber}). */
    private CanonicalNumber number() {
        int start = at;
        if (in[at] == '-') at++;
        if (in[at] == '0') {
            at++;
        } else if (in[at] >= '1' && in[at] <= '9') {
            digits();
        } else {
            throw undecided();
        }
        if (at < in.length && in[at] == '.') {
            at++;
            if (digits() == 0) throw undecided();
        }
        if (at < in.length && (in[at] == 'e' || in[at] == 'E')) {
            at++;
            if (in[at] == '+' || in[at] == '-') at++;
            if (digits() == 0) throw undecided();
        }
        // what follows ("01", "1x") is checked by the container or by read(), as after any value
        if (at - start > MAX_NUMBER_CHARS) throw undecided();
        String canonical = JsonNumber.canonical(new String(in, start, at - start, StandardCharsets.ISO_8859_1));
        if (canonical == null) throw undecided();
        return new CanonicalNumber(canonical);
    }

    private int digits() {
        int from = at;
        while (at < in.length && in[at] >= '0' && in[at] <= '9') at++;
        return at - from;
    }

    /** A string at its opening quote; plain ASCII without escapes (most are) is copied, the rest decoded. */
    private String string(int maxChars) {
        int start = ++at;
        while (true) {
            byte b = in[at];
            if (b == '"') break;
            if (b == '\\' || b < 0x20) return decoded(start, maxChars); // b < 0: not ASCII
            at++;
        }
        if (at - start > maxChars) throw undecided();
        String s = new String(in, start, at - start, StandardCharsets.ISO_8859_1);
        at++;
        return s;
    }

    private String decoded(int start, int maxChars) {
        StringBuilder s = new StringBuilder(at - start + 16);
        for (int i = start; i < at; i++) s.append((char) in[i]); // ASCII so far
        while (true) {
            int b = in[at] & 0xff;
            if (b == '"') break;
            if (b < 0x20) throw undecided(); // Jackson refuses an unescaped control character
            if (b == '\\') {
                s.append(escape());
            } else if (b < 0x80) {
                s.append((char) b);
                at++;
            } else {
                utf8(b, s);
            }
            if (s.length() > maxChars) throw undecided();
        }
        at++;
        return s.toString();
    }

    private char escape() {
        byte e = in[at + 1];
        at += 2;
        switch (e) {
            case '"': return '"';
            case '\\': return '\\';
            case '/': return '/';
            case 'b': return '\b';
            case 'f': return '\f';
            case 'n': return '\n';
            case 'r': return '\r';
            case 't': return '\t';
            case 'u': {
                int c = 0;
                for (int i = 0; i < 4; i++) {
                    int digit = Character.digit(in[at++], 16); // a byte above 0x7f is negative: never a digit
                    if (digit < 0) throw undecided();
                    c = c << 4 | digit;
                }
                return (char) c; // a lone surrogate too, as Jackson reads it
            }
            default: throw undecided();
        }
    }

    /** One character of two to four bytes of strict UTF-8 ({@link Utf8}); four bytes make a surrogate pair. */
    private void utf8(int lead, StringBuilder s) {
        int length = Utf8.sequenceLength(in, at);
        if (length == 0) throw undecided(); // not strict UTF-8: refused, once the caller has checked the whole body
        if (length == 2) {
            s.append((char) ((lead & 0x1f) << 6 | (in[at + 1] & 0x3f)));
            at += 2;
        } else if (length == 3) {
            s.append((char) ((lead & 0x0f) << 12 | (in[at + 1] & 0x3f) << 6 | (in[at + 2] & 0x3f)));
            at += 3;
        } else {
            int c = (lead & 0x07) << 18 | (in[at + 1] & 0x3f) << 12 | (in[at + 2] & 0x3f) << 6 | (in[at + 3] & 0x3f);
            s.appendCodePoint(c);
            at += 4;
        }
    }

    private void skipSpace() {
        while (at < in.length) {
            byte b = in[at];
            if (b != ' ' && b != '\t' && b != '\n' && b != '\r') return;
            at++;
        }
    }
}
