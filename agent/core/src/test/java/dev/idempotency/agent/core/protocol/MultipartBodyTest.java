package dev.idempotency.agent.core.protocol;

import dev.idempotency.agent.bootstrap.bridge.CapturedPart;
import org.junit.jupiter.api.Test;

import java.nio.charset.StandardCharsets;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;

class MultipartBodyTest {
    static String body(String boundary, String... parts) {
        StringBuilder b = new StringBuilder("preamble\r\n");
        for (String part : parts) b.append("--").append(boundary).append("\r\n").append(part).append("\r\n");
        return b.append("--").append(boundary).append("--\r\n").toString();
    }

    @Test
    void splitsPartsWithTheirNamesFileNamesTypesAndBytes() throws Exception {
        String text = body("XyZ",
                "Content-Disposition: form-data; name=\"note\"\r\n\r\nhello",
                "Content-Disposition: form-data; name=\"file\"; filename=\"a \\\"b\\\".txt\"\r\nContent-Type: text/plain\r\n\r\nline1\r\nline2");
        byte[] bytes = text.getBytes(StandardCharsets.UTF_8);
        List<CapturedPart> parts = MultipartBody.parse(bytes, "multipart/form-data; boundary=XyZ");
        assertEquals(2, parts.size());
        assertEquals("note", parts.get(0).name());
        assertNull(parts.get(0).fileName());
        assertEquals("hello", new String(bytes, parts.get(0).offset(), parts.get(0).size(), StandardCharsets.UTF_8));
        assertEquals("file", parts.get(1).name());
        assertEquals("a \"b\".txt", parts.get(1).fileName());
        assertEquals("text/plain", parts.get(1).contentType());
        assertEquals("line1\r\nline2", new String(bytes, parts.get(1).offset(), parts.get(1).size(), StandardCharsets.UTF_8));
        int headers = parts.get(1).headerOffset();
        assertEquals("Content-Disposition: form-data; name=\"file\"; filename=\"a \\\"b\\\".txt\"\r\nContent-Type: text/plain",
                new String(bytes, headers, parts.get(1).offset() - 4 - headers, StandardCharsets.UTF_8), "the header block as sent");
    }

    @Test
    void quotedBoundariesAndEmptyParts() throws Exception {
        byte[] bytes = body("a:b", "Content-Disposition: form-data; name=empty\r\n\r\n").getBytes(StandardCharsets.UTF_8);
        List<CapturedPart> parts = MultipartBody.parse(bytes, "multipart/form-data; boundary=\"a:b\"");
        assertEquals("empty", parts.get(0).name());
        assertEquals(0, parts.get(0).size());
    }

    @Test
    void malformedBodiesAreRefused() {
        String type = "multipart/form-data; boundary=B";
        assertThrows(MultipartBody.MalformedException.class, () -> MultipartBody.parse("no boundary here".getBytes(StandardCharsets.UTF_8), type));
        assertThrows(MultipartBody.MalformedException.class, () -> MultipartBody.parse("--B\r\nContent-Disposition: form-data; name=x\r\n\r\nunterminated".getBytes(StandardCharsets.UTF_8), type));
        assertThrows(MultipartBody.MalformedException.class, () -> MultipartBody.parse("--B\r\nContent-Type: text/plain\r\n\r\nx\r\n--B--".getBytes(StandardCharsets.UTF_8), type));
        assertThrows(MultipartBody.MalformedException.class, () -> MultipartBody.parse(new byte[0], "multipart/form-data"));
    }
}
