package dev.idempotency.e2e.scenarios;

import dev.idempotency.e2e.support.Client;
import org.junit.jupiter.api.Test;

import java.net.http.HttpRequest;
import java.net.http.HttpResponse;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * An anonymous keyed request whose response creates a session: its client keeps the cookie and retries with it, which
 * under {@code tenant=auto} is another scope. The retry is still a replay, and only a client holding that session
 * reaches it. Containers that write their session cookie only at commit (Undertow, Open Liberty) are the case to prove.
 */
public interface SessionChecks {
    Client client();

    @Test
    default void aRetryCarryingTheSessionItsFirstAttemptCreatedIsAReplay() throws Exception {
        long before = client().count("answer");
        String key = ServerScenarios.key();
        HttpResponse<byte[]> first = inSession(key, null);
        assertEquals(200, first.statusCode(), ServerScenarios.text(first));
        String session = cookie(first);
        HttpResponse<byte[]> withSession = inSession(key, session);
        ServerScenarios.assertReplayOf(first, withSession);
        assertEquals(first.headers().allValues("Set-Cookie"), withSession.headers().allValues("Set-Cookie"),
                "the client holding the session gets its cookie again");
        HttpResponse<byte[]> withoutSession = inSession(key, null);
        ServerScenarios.assertReplayOf(first, withoutSession);
        assertTrue(withoutSession.headers().allValues("Set-Cookie").isEmpty(), "a scope clients share never hands a session out");
        assertEquals(before + 1, client().count("answer"), "a retry must not run the application again");

        String otherSession = cookie(inSession(ServerScenarios.key(), null));
        HttpResponse<byte[]> otherClient = inSession(key, otherSession);
        assertEquals(200, otherClient.statusCode(), ServerScenarios.text(otherClient));
        assertFalse(otherClient.headers().firstValue("Idempotent-Replayed").isPresent(), "another session's request is its own");
        assertEquals(before + 3, client().count("answer"));
    }

    private HttpResponse<byte[]> inSession(String key, String cookie) throws Exception {
        HttpRequest.Builder r = client().request("/answers?case=session").header("Idempotency-Key", key)
                .header("Content-Type", "application/json").POST(HttpRequest.BodyPublishers.ofString("{\"for\":\"session\"}"));
        if (cookie != null) r.header("Cookie", cookie);
        return client().send(r);
    }

    /** The name=value of the cookie a response sets. */
    private static String cookie(HttpResponse<byte[]> response) {
        String setCookie = response.headers().firstValue("Set-Cookie").orElseThrow(() -> new AssertionError("no session cookie set"));
        return setCookie.split(";", 2)[0].trim();
    }
}
