package dev.idempotency.agent.servlet.javax;

import org.junit.jupiter.api.Test;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.OutputStreamWriter;
import java.nio.charset.Charset;
import java.nio.charset.StandardCharsets;
import java.util.Random;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;

/** What the application's writer encoded leaves the container's writer as the same bytes, however it is split. */
class WriterOutputStreamTest {
    private static final String TEXT = "caf\u00e9 \u2013 \u20ac \u65e5\u672c \ud83d\ude00 ok <json>{\"a\":1}</json>";

    @Test
    void everySplitOfTheEncodedTextLeavesAsTheSameBytes() throws IOException {
        for (Charset charset : new Charset[] {StandardCharsets.UTF_8, StandardCharsets.ISO_8859_1, StandardCharsets.UTF_16BE,
                Charset.forName("windows-1252")}) {
            byte[] encoded = encode(TEXT.repeat(50), charset);
            Random random = new Random(charset.name().hashCode());
            for (int round = 0; round < 50; round++) {
                ByteArrayOutputStream sent = new ByteArrayOutputStream();
                OutputStreamWriter containerWriter = new OutputStreamWriter(sent, charset);
                WriterOutputStream out = new WriterOutputStream(containerWriter, charset.name());
                for (int at = 0; at < encoded.length; ) {
                    int length = Math.min(encoded.length - at, random.nextInt(7)); // zero-length writes too
                    if (length == 1 && random.nextBoolean()) out.write(encoded[at]);
                    else out.write(encoded, at, length);
                    at += length;
                }
                out.flush();
                assertArrayEquals(encoded, sent.toByteArray(), charset + ", round " + round);
            }
        }
    }

    @Test
    void aLargeBodyInOneWriteLeavesWhole() throws IOException {
        byte[] encoded = encode(TEXT.repeat(5_000), StandardCharsets.UTF_8);
        ByteArrayOutputStream sent = new ByteArrayOutputStream();
        OutputStreamWriter containerWriter = new OutputStreamWriter(sent, StandardCharsets.UTF_8);
        WriterOutputStream out = new WriterOutputStream(containerWriter, "UTF-8");
        out.write(encoded, 0, encoded.length);
        out.flush();
        assertArrayEquals(encoded, sent.toByteArray());
    }

    private static byte[] encode(String text, Charset charset) throws IOException {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        try (OutputStreamWriter writer = new OutputStreamWriter(bytes, charset)) {
            writer.write(text);
        }
        return bytes.toByteArray();
    }
}
