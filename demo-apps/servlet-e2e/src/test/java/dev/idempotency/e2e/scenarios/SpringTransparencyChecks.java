package dev.idempotency.e2e.scenarios;

import dev.idempotency.e2e.support.Client;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.net.http.HttpRequest;
import java.net.http.HttpResponse;

import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * {@link TransparencyChecks} for a Spring application (the orders service's {@code /api/answers/{kind}}): a refusal
 * Spring sends with sendError and its reason (the container's error page, or Spring Boot's error controller), and a
 * relative redirect; where the
 * application defines the view of {@code /api/answers/view}, a view (DispatcherServlet sets the response's locale
 * before it renders), through {@link #assertTransparent}.
 */
public interface SpringTransparencyChecks {

    Client client();

    /**
     * The part of an unkeyed and a keyed body compared: all of it, but what a page makes anew each time (Spring Boot's
     * error controller writes a timestamp). A replay is compared whole: the page is recorded.
     */
    default String comparable(String body) {
        return body;
    }

    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {"error", "redirect"})
    default void theFirstKeyedAnswerIsTheUnkeyedOneAndItsRetryReplaysIt(String kind) throws Exception {
        assertTransparent(kind);
    }

    /** The keyed answer is the unkeyed one, and its retry a replay of it that does not run the application again. */
    default void assertTransparent(String kind) throws Exception {
        HttpResponse<byte[]> unkeyed = answer(kind, null);
        long before = client().count("answer");
        String key = ServerScenarios.key();
        HttpResponse<byte[]> first = answer(kind, key);
        TransparencyChecks.assertSameAnswer(unkeyed, first, "the first keyed answer to '" + kind + "'", this::comparable);
        HttpResponse<byte[]> retry = answer(kind, key);
        assertEquals("true", retry.headers().firstValue("Idempotent-Replayed").orElse(null), "the retry of '" + kind + "' is a replay");
        TransparencyChecks.assertSameAnswer(first, retry, "the replay of '" + kind + "'");
        assertEquals(before + 1, client().count("answer"), "a retry must not run the application again");
    }

    private HttpResponse<byte[]> answer(String kind, String key) throws Exception {
        HttpRequest.Builder request = client().request("/api/answers/" + kind).header("Content-Type", "application/json")
                .POST(HttpRequest.BodyPublishers.ofString("{\"for\":\"" + kind + "\"}"));
        if (key != null) request.header("Idempotency-Key", key);
        return client().send(request);
    }
}
