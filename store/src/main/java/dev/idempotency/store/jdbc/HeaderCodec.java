package dev.idempotency.store.jdbc;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;
import dev.idempotency.store.StoredResponse.Header;

import java.io.IOException;
import java.util.ArrayList;
import java.util.List;

/** Stores response headers as a JSON array of [name, value] pairs: order and repeated names survive. */
final class HeaderCodec {
    private static final JsonFactory JSON = new JsonFactory();

    private HeaderCodec() {
    }

    /** The text Jackson's generator wrote, without setting one up for a few headers: stored rows compare equal. */
    static String encode(List<Header> headers) {
        StringBuilder out = new StringBuilder(2 + 40 * headers.size());
        out.append('[');
        for (int i = 0; i < headers.size(); i++) {
            Header h = headers.get(i);
            if (i > 0) out.append(',');
            out.append('[');
            quoted(out, h.name());
            out.append(',');
            quoted(out, h.value());
            out.append(']');
        }
        return out.append(']').toString();
    }

    private static final char[] HEX = "0123456789ABCDEF".toCharArray();

    /** Escaped as the generator escapes: '"', '\\' and the control characters; everything else as it is. */
    private static void quoted(StringBuilder out, String s) {
        out.append('"');
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            if (c >= 0x20 && c != '"' && c != '\\') {
                out.append(c);
                continue;
            }
            out.append('\\');
            switch (c) {
                case '"': out.append('"'); break;
                case '\\': out.append('\\'); break;
                case '\b': out.append('b'); break;
                case '\t': out.append('t'); break;
                case '\n': out.append('n'); break;
                case '\f': out.append('f'); break;
                case '\r': out.append('r'); break;
                default: out.append("u00").append(HEX[c >> 4]).append(HEX[c & 0xf]);
            }
        }
        out.append('"');
    }

    static List<Header> decode(String json) {
        List<Header> headers = new ArrayList<>();
        if (json == null || json.isEmpty()) return headers;
        try (JsonParser p = JSON.createParser(json)) {
            expect(p.nextToken(), JsonToken.START_ARRAY);
            while (p.nextToken() == JsonToken.START_ARRAY) {
                String name = p.nextTextValue();
                String value = p.nextTextValue();
                expect(p.nextToken(), JsonToken.END_ARRAY);
                if (name == null || value == null) throw new IllegalStateException("stored header pair is not two strings");
                headers.add(new Header(name, value));
            }
        } catch (IOException e) {
            throw new IllegalStateException("stored response headers are not valid JSON", e);
        }
        return headers;
    }

    private static void expect(JsonToken actual, JsonToken expected) {
        if (actual != expected) throw new IllegalStateException("stored response headers: expected " + expected + " but found " + actual);
    }
}
