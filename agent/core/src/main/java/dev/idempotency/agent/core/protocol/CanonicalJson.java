package dev.idempotency.agent.core.protocol;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonGenerator;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;

/**
 * RFC 8785 style canonical JSON: sorted keys, no whitespace, numbers by value. Only strict UTF-8 without a byte order
 * mark is canonicalised (RFC 8259 section 8.1); anything else is left to the raw bytes, as is a document beyond
 * Jackson's limits (nesting deeper than 1000, a number longer than 1000 characters, a name longer than 50 000). Every
 * step is linear in the body (the key sort n log n), so a client cannot choose a shape that costs much more than
 * plain JSON of the same size.
 */
final class CanonicalJson {
    /**
     * Names are not canonicalised (nor interned): Jackson's symbol table made an object of many distinct short keys
     * cost 5 to 10 times plain JSON. Duplicate names are found by the sort instead.
     */
    private static final JsonFactory JSON = JsonFactory.builder().disable(JsonFactory.Feature.CANONICALIZE_FIELD_NAMES)
            .disable(JsonFactory.Feature.INTERN_FIELD_NAMES).build();

    private static final int DECODED_UP_TO = 16 * 1024;

    private CanonicalJson() {
    }

    /** The canonical form, or null when the body is not strict UTF-8 JSON. */
    static byte[] of(byte[] body) {
        Object tree = JsonTreeReader.read(body); // what it decides is strict UTF-8 already
        if (tree == JsonTreeReader.UNDECIDED) return isPlainUtf8(body) ? viaJackson(body) : null;
        try {
            return written(tree, body.length);
        } catch (IOException | RuntimeException e) {
            return null;
        }
    }

    /**
     * What Jackson's parser makes of a strict UTF-8 body ({@link #isPlainUtf8}): every such body {@link JsonTreeReader}
     * leaves undecided, and every body in the tests that hold the reader to it.
     */
    static byte[] viaJackson(byte[] body) {
        // A small body is parsed from chars: with CANONICALIZE_FIELD_NAMES off Jackson reads bytes through a Reader of
        // its own, slower than the JDK's decoding of a body known to be strict UTF-8. A large one is not copied twice
        // more (the memory budget counts its bytes only).
        try (JsonParser parser = body.length <= DECODED_UP_TO ? JSON.createParser(new String(body, StandardCharsets.UTF_8))
                : JSON.createParser(body)) {
            if (parser.nextToken() == null) return null;
            Object tree = read(parser);
            if (parser.nextToken() != null) return null;
            return written(tree, body.length);
        } catch (IOException | RuntimeException e) {
            return null;
        }
    }

    /** The tree's canonical bytes: by {@link CanonicalWriter}, or by Jackson's generator where the writer leaves it. */
    private static byte[] written(Object tree, int sizeHint) throws IOException {
        byte[] written = CanonicalWriter.write(tree, sizeHint);
        return written != null ? written : generated(tree, sizeHint);
    }

    /**
     * Jackson's generator, which wrote every canonical form before {@link CanonicalWriter} (whose output is the same)
     * and still writes those the writer leaves to it.
     */
    static byte[] generated(Object tree, int sizeHint) throws IOException {
        ByteArrayOutputStream out = new ByteArrayOutputStream(sizeHint);
        try (JsonGenerator g = JSON.createGenerator(out)) {
            write(g, tree);
        }
        return out.toByteArray();
    }

    /**
     * Strict UTF-8, no byte order mark, and no NUL among the first four bytes: Jackson would read those as UTF-16 or
     * UTF-32 (a raw NUL is never valid JSON anyway), and an application reading them sees other characters.
     */
    static boolean isPlainUtf8(byte[] body) {
        if (body.length >= 3 && (body[0] & 0xff) == 0xef && (body[1] & 0xff) == 0xbb && (body[2] & 0xff) == 0xbf) return false;
        for (int i = 0; i < Math.min(4, body.length); i++) if (body[i] == 0) return false;
        return Utf8.isValid(body);
    }

    /** A number already in canonical form. */
    static final class CanonicalNumber {
        final String text;

        CanonicalNumber(String text) {
            this.text = text;
        }
    }

    /** A name and its value; sorts in String order (as the fingerprints stored before), mostly by its first chars. */
    static final class Member implements Comparable<Member> {
        final String name;
        final Object value;
        /** The name's first four chars, zero-padded: comparing them first keeps most comparisons off the strings. */
        private final long prefix;

        Member(String name, Object value) {
            this.name = name;
            this.value = value;
            long chars = 0;
            for (int i = 0; i < 4; i++) chars = chars << 16 | (i < name.length() ? name.charAt(i) : 0);
            this.prefix = chars;
        }

        @Override
        public int compareTo(Member other) {
            int c = Long.compareUnsigned(prefix, other.prefix);
            return c != 0 ? c : name.compareTo(other.name);
        }
    }

    /** Its members sorted by name (String order, as the fingerprints stored before used). */
    static final class JsonObject {
        final List<Member> members;

        JsonObject(List<Member> members) {
            this.members = members;
        }
    }

    /** The members sorted by name; null when a name occurs twice. */
    static JsonObject sortedObject(List<Member> members) {
        // sorted as a list, not a tree: many keys cost a merge sort, duplicates end up side by side
        members.sort(null);
        for (int i = 1; i < members.size(); i++) {
            if (members.get(i).name.equals(members.get(i - 1).name)) return null;
        }
        return new JsonObject(members);
    }

    /** The document as a tree: {@link JsonObject}, List, String, {@link CanonicalNumber}, Boolean or null. */
    static Object read(JsonParser p) throws IOException {
        JsonToken t = p.currentToken();
        switch (t) {
            case START_OBJECT: {
                List<Member> members = new ArrayList<>();
                while (p.nextToken() == JsonToken.FIELD_NAME) {
                    String name = p.currentName();
                    p.nextToken();
                    members.add(new Member(name, read(p)));
                }
                JsonObject object = sortedObject(members);
                if (object == null) throw new IOException("duplicate name");
                return object;
            }
            case START_ARRAY: {
                List<Object> array = new ArrayList<>();
                while (p.nextToken() != JsonToken.END_ARRAY) array.add(read(p));
                return array;
            }
            case VALUE_STRING: return p.getText();
            case VALUE_NUMBER_INT:
            case VALUE_NUMBER_FLOAT: {
                String number = JsonNumber.canonical(p.getText());
                if (number == null) throw new IOException("number out of range");
                return new CanonicalNumber(number);
            }
            case VALUE_TRUE: return Boolean.TRUE;
            case VALUE_FALSE: return Boolean.FALSE;
            case VALUE_NULL: return null;
            default: throw new IOException("unexpected token " + t);
        }
    }

    @SuppressWarnings("unchecked")
    private static void write(JsonGenerator g, Object value) throws IOException {
        if (value instanceof JsonObject) {
            g.writeStartObject();
            for (Member member : ((JsonObject) value).members) {
                g.writeFieldName(member.name);
                write(g, member.value);
            }
            g.writeEndObject();
        } else if (value instanceof List) {
            g.writeStartArray();
            for (Object element : (List<Object>) value) write(g, element);
            g.writeEndArray();
        } else if (value instanceof CanonicalNumber) {
            g.writeNumber(((CanonicalNumber) value).text);
        } else if (value instanceof String) {
            g.writeString((String) value);
        } else if (value instanceof Boolean) {
            g.writeBoolean((Boolean) value);
        } else {
            g.writeNull();
        }
    }
}
