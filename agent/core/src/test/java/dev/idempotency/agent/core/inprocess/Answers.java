package dev.idempotency.agent.core.inprocess;

import dev.idempotency.agent.core.inprocess.AppLedger.Written;

import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.util.Locale;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** What a client must see: the application's own answer, its replay, or one of the agent's problems. */
final class Answers {
    static final String PROBLEM = "urn:idempotency-agent:problem:";

    private Answers() {
    }

    static String text(HttpResponse<byte[]> response) {
        return new String(response.body(), StandardCharsets.UTF_8);
    }

    static boolean replayed(HttpResponse<byte[]> response) {
        return response.headers().firstValue("Idempotent-Replayed").isPresent();
    }

    /** The response is the answer the application wrote: its status, every header it set, its bytes. */
    static void assertWrittenByTheApplication(Written written, HttpResponse<byte[]> response) {
        assertEquals(written.status(), response.statusCode(), text(response));
        assertFalse(replayed(response), "the application's own answer is no replay");
        for (Map.Entry<String, String> header : written.headers().entrySet()) {
            String sent = response.headers().firstValue(header.getKey()).orElse(null);
            // the container may write a content type in its own spelling (Jetty: charset=utf-8)
            if (header.getKey().equals("Content-Type")) {
                assertEquals(spelling(header.getValue()), spelling(sent), "Content-Type");
            } else {
                assertEquals(header.getValue(), sent, header.getKey());
            }
        }
        assertArrayEquals(written.body(), response.body(), "the body the application wrote");
    }

    /** The retry got the first answer again, byte for byte, marked as a replay. */
    static void assertReplayOf(HttpResponse<byte[]> first, Written written, HttpResponse<byte[]> retry) {
        assertEquals(first.statusCode(), retry.statusCode(), text(retry));
        assertEquals("true", retry.headers().firstValue("Idempotent-Replayed").orElse(null), text(retry));
        for (String name : written.headers().keySet()) {
            assertEquals(first.headers().firstValue(name), retry.headers().firstValue(name), name + " of the replay");
        }
        assertArrayEquals(first.body(), retry.body(), "the replayed body must be the first answer's bytes");
    }

    static void assertProblem(HttpResponse<byte[]> response, int status, String type) {
        assertEquals(status, response.statusCode(), text(response));
        assertEquals("application/problem+json", response.headers().firstValue("Content-Type").orElse(""),
                text(response));
        assertTrue(text(response).contains("\"type\":\"" + PROBLEM + type + "\""), text(response));
    }

    private static String spelling(String contentType) {
        return contentType == null ? null : contentType.replace(" ", "").toLowerCase(Locale.ROOT);
    }
}
