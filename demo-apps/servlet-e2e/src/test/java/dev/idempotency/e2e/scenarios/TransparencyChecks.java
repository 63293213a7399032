package dev.idempotency.e2e.scenarios;

import dev.idempotency.e2e.support.Client;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * The first keyed answer is the application's own: for each kind of answer the payments application gives at
 * {@code /answers}, the keyed response equals the unkeyed response to the same request (status, every header but those
 * each exchange makes anew, body), and its retry is a replay of it that does not run the application again. The kinds
 * are those that leave part of the response to the container: a locale, errors without a body, error pages of the
 * application's own (by status and by exception), a relative redirect and a cookie.
 */
public interface TransparencyChecks {
    /** Framing and per-exchange headers; the bodies are compared byte for byte instead. */
    Set<String> PER_EXCHANGE = Set.of("date", "connection", "keep-alive", "transfer-encoding", "content-length");

    Client client();

    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {"locale", "charset", "error", "error-message", "error-page-status", "redirect", "cookie"})
    default void theFirstKeyedAnswerIsTheUnkeyedOneAndItsRetryReplaysIt(String answer) throws Exception {
        HttpResponse<byte[]> unkeyed = answer(answer, null);
        long before = client().count("answer");
        String key = ServerScenarios.key();
        HttpResponse<byte[]> first = answer(answer, key);
        assertSameAnswer(unkeyed, first, "the first keyed answer to '" + answer + "'");
        long pagesBefore = client().count("error-page");
        HttpResponse<byte[]> retry = answer(answer, key);
        assertEquals("true", retry.headers().firstValue("Idempotent-Replayed").orElse(null), "the retry of '" + answer + "' is a replay");
        assertSameAnswer(first, retry, "the replay of '" + answer + "'");
        assertEquals(before + 1, client().count("answer"), "a retry must not run the application again");
        assertEquals(pagesBefore, client().count("error-page"), "the application's error page is recorded, not rendered again");
    }

    /** An exception is a failure: the key is released, and the keyed client gets the application's error page. */
    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {"error-page-exception"})
    default void anErrorPageForAnExceptionIsTheUnkeyedOne(String answer) throws Exception {
        HttpResponse<byte[]> unkeyed = answer(answer, null);
        HttpResponse<byte[]> first = answer(answer, ServerScenarios.key());
        assertSameAnswer(unkeyed, first, "the keyed answer to '" + answer + "'");
    }

    private HttpResponse<byte[]> answer(String answer, String key) throws Exception {
        // with a credential, so the key's scope is the client's own, where replays carry the cookies a response sets
        HttpRequest.Builder request = client().request("/answers?case=" + answer).header("Content-Type", "application/json")
                .header("Authorization", "Bearer transparency")
                .POST(HttpRequest.BodyPublishers.ofString("{\"for\":\"" + answer + "\"}"));
        if (key != null) request.header("Idempotency-Key", key);
        return client().send(request);
    }

    static void assertSameAnswer(HttpResponse<byte[]> expected, HttpResponse<byte[]> actual, String what) {
        assertSameAnswer(expected, actual, what, body -> body);
    }

    /** @param comparable the part of a body compared: all of it, but for a value the application makes anew each call */
    static void assertSameAnswer(HttpResponse<byte[]> expected, HttpResponse<byte[]> actual, String what,
                                 java.util.function.UnaryOperator<String> comparable) {
        assertEquals(expected.statusCode(), actual.statusCode(), what + ": status; body " + ServerScenarios.text(actual));
        assertEquals(headers(expected), headers(actual), what + ": headers");
        String expectedBody = ServerScenarios.text(expected);
        if (comparable.apply(expectedBody).equals(expectedBody)) {
            assertArrayEquals(expected.body(), actual.body(), what + ": body " + ServerScenarios.text(actual) + " against " + expectedBody);
        } else {
            assertEquals(comparable.apply(expectedBody), comparable.apply(ServerScenarios.text(actual)), what + ": body");
        }
    }

    private static Map<String, List<String>> headers(HttpResponse<byte[]> response) {
        Map<String, List<String>> headers = new TreeMap<>();
        response.headers().map().forEach((name, values) -> {
            String lower = name.toLowerCase(Locale.ROOT);
            if (!PER_EXCHANGE.contains(lower) && !lower.equals("idempotent-replayed")) headers.put(lower, values);
        });
        return headers;
    }
}
