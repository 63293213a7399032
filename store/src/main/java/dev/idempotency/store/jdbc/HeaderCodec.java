package dev.idempotency.store.jdbc;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonGenerator;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;
import dev.idempotency.store.StoredResponse.Header;

import java.io.IOException;
import java.io.StringWriter;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.List;

/** Stores response headers as a JSON array of [name, value] pairs: order and repeated names survive. */
final class HeaderCodec {
    private static final JsonFactory JSON = new JsonFactory();

    private HeaderCodec() {
    }

    static String encode(List<Header> headers) {
        StringWriter out = new StringWriter();
        try (JsonGenerator g = JSON.createGenerator(out)) {
            g.writeStartArray();
            for (Header h : headers) {
                g.writeStartArray();
                g.writeString(h.name());
                g.writeString(h.value());
                g.writeEndArray();
            }
            g.writeEndArray();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return out.toString();
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
