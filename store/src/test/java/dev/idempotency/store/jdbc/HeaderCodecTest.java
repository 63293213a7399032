package dev.idempotency.store.jdbc;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonGenerator;
import dev.idempotency.store.StoredResponse.Header;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.io.StringWriter;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;

/** Stored header text: what Jackson's generator wrote before (rows compare equal), and read back as it was. */
class HeaderCodecTest {

    private static String generated(List<Header> headers) throws IOException {
        StringWriter out = new StringWriter();
        try (JsonGenerator g = new JsonFactory().createGenerator(out)) {
            g.writeStartArray();
            for (Header h : headers) {
                g.writeStartArray();
                g.writeString(h.name());
                g.writeString(h.value());
                g.writeEndArray();
            }
            g.writeEndArray();
        }
        return out.toString();
    }

    private static void assertAsGeneratedAndReadBack(List<Header> headers) throws IOException {
        String encoded = HeaderCodec.encode(headers);
        assertEquals(generated(headers), encoded);
        List<Header> decoded = HeaderCodec.decode(encoded);
        assertEquals(headers.size(), decoded.size());
        for (int i = 0; i < headers.size(); i++) {
            assertEquals(headers.get(i).name(), decoded.get(i).name());
            assertEquals(headers.get(i).value(), decoded.get(i).value());
        }
    }

    @Test
    void everyCharacterInNamesAndValues() throws IOException {
        List<Header> headers = new ArrayList<>();
        for (int c = 0; c <= 0xffff; c++) {
            if (Character.isSurrogate((char) c)) continue;
            String s = String.valueOf((char) c);
            headers.add(new Header("X-" + s, s + "v" + s));
            if (headers.size() == 512) {
                assertAsGeneratedAndReadBack(headers);
                headers.clear();
            }
        }
        assertAsGeneratedAndReadBack(headers);
    }

    @Test
    void repeatedNamesOrderAndEmptyLists() throws IOException {
        assertAsGeneratedAndReadBack(Collections.emptyList());
        assertAsGeneratedAndReadBack(Arrays.asList(new Header("Set-Cookie", "a=1"), new Header("Location", "/x?y=\"z\""),
                new Header("Set-Cookie", "b=2; Path=/"), new Header("X-Emoji", "\ud83d\ude00")));
    }
}
