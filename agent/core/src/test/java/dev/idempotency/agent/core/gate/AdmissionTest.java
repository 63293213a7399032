package dev.idempotency.agent.core.gate;

import dev.idempotency.agent.core.config.AgentConfig;
import dev.idempotency.agent.core.config.ConfigSource;
import dev.idempotency.agent.core.lifecycle.StoreLifecycle;
import dev.idempotency.agent.core.telemetry.AgentMetrics;
import dev.idempotency.store.IdempotencyStore;
import dev.idempotency.store.KeyStatus;
import dev.idempotency.store.Reservation;
import dev.idempotency.store.StoredResponse;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.Collections;
import java.util.List;
import java.util.Properties;
import java.util.function.Supplier;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** How an admission ends, against a real (embedded H2) store. */
class AdmissionTest {
    private static final byte[] BODY = "{\"ok\":true}".getBytes(StandardCharsets.UTF_8);
    private static final List<String[]> HEADERS = Arrays.asList(new String[] {"Content-Type", "application/json"},
            new String[] {"Set-Cookie", "SESSION=new-session; HttpOnly"}, new String[] {"Date", "Sun, 22 Nov 2026 05:00:00 GMT"});

    private final AgentMetrics metrics = new AgentMetrics();
    private StoreLifecycle lifecycle;
    private AgentConfig config;

    private IdempotencyStore open(String... settings) {
        Properties p = new Properties();
        // in memory: no files for a background thread of the store to touch while the test cleans up
        p.setProperty("idempotency.store.url", "jdbc:h2:mem:admission-" + java.util.UUID.randomUUID() + ";DB_CLOSE_DELAY=-1");
        for (int i = 0; i < settings.length; i += 2) p.setProperty(settings[i], settings[i + 1]);
        config = AgentConfig.load(ConfigSource.of(p, Collections.emptyMap()));
        lifecycle = new StoreLifecycle(config.store, config.sweepInterval, metrics);
        return lifecycle.store();
    }

    @AfterEach
    void close() {
        if (lifecycle != null) lifecycle.store().close();
    }

    private Admission admission(IdempotencyStore store, Reservation reservation, boolean shared) {
        return new Admission(store, lifecycle.heartbeat(), reservation.token(), "test", config, !shared, metrics, new InFlightWaits(false));
    }

    private static <T> T await(String what, Supplier<T> value, java.util.function.Predicate<T> done) {
        long deadline = System.nanoTime() + 20_000_000_000L;
        T last = value.get();
        while (!done.test(last)) {
            if (System.nanoTime() > deadline) throw new AssertionError("timed out awaiting " + what + "; last " + last);
            last = value.get();
        }
        return last;
    }

    /** Hands {@code stale} the first owner's admission once another request took its key over; the new owner keeps it. */
    private void afterATakeover(String key, java.util.function.Consumer<Admission> stale) {
        IdempotencyStore store = open("idempotency.lease", "1s", "idempotency.on-expired-lease", "retry");
        Reservation first = store.reserve("tenant", key, "fp");
        // The first owner stalls past its lease without renewing (it never joined the heartbeat); another takes over.
        Reservation second = await("a takeover", () -> store.reserve("tenant", key, "fp"), r -> r.outcome() == Reservation.Outcome.REACQUIRED);
        stale.accept(admission(store, first, false));
        assertEquals(KeyStatus.IN_FLIGHT, store.find("tenant", key).orElseThrow().status(), "the new owner keeps the key");
        assertTrue(admission(store, second, false).end());
    }

    @Test
    void aResponseWhoseKeyWasTakenOverIsNotRecordedAndMustNotBeSent() {
        afterATakeover("k1", stale -> {
            assertTrue(stale.end());
            assertEquals(Admission.Conclusion.TAKEN_OVER, stale.conclude(201, HEADERS, BODY));
        });
    }

    /** The real store, except that its first {@code failures} completions find the database away (a failover). */
    private static IdempotencyStore completionsFailing(IdempotencyStore real, int failures, java.util.concurrent.atomic.AtomicInteger calls) {
        return (IdempotencyStore) java.lang.reflect.Proxy.newProxyInstance(IdempotencyStore.class.getClassLoader(),
                new Class<?>[] {IdempotencyStore.class}, (proxy, method, args) -> {
                    if (method.getName().equals("complete") && calls.incrementAndGet() <= failures) {
                        throw new dev.idempotency.store.StoreUnavailableException("the primary is gone", null);
                    }
                    try {
                        return method.invoke(real, args);
                    } catch (java.lang.reflect.InvocationTargetException e) {
                        throw e.getCause();
                    }
                });
    }

    @Test
    void aResponseIsRecordedOnceTheStoreIsBackWithinHalfTheLease() {
        IdempotencyStore store = open("idempotency.lease", "20s");
        java.util.concurrent.atomic.AtomicInteger calls = new java.util.concurrent.atomic.AtomicInteger();
        IdempotencyStore failingOver = completionsFailing(store, 4, calls);
        Reservation r = store.reserve("tenant", "failover", "fp");
        Admission admission = new Admission(failingOver, lifecycle.heartbeat(), r.token(), "test", config, true, metrics, new InFlightWaits(false));
        assertTrue(admission.end());
        assertEquals(Admission.Conclusion.RECORDED, admission.conclude(201, HEADERS, BODY));
        assertEquals(5, calls.get(), "four failed attempts, then the one that recorded it");
        assertEquals(KeyStatus.COMPLETED, store.find("tenant", "failover").orElseThrow().status());
    }

    @Test
    void aResponseTheStoreCannotTakeWithinHalfTheLeaseIsNotRecordedAndNotSent() {
        IdempotencyStore store = open("idempotency.lease", "1s");
        java.util.concurrent.atomic.AtomicInteger calls = new java.util.concurrent.atomic.AtomicInteger();
        IdempotencyStore away = completionsFailing(store, Integer.MAX_VALUE, calls);
        Reservation r = store.reserve("tenant", "away", "fp");
        Admission admission = new Admission(away, lifecycle.heartbeat(), r.token(), "test", config, true, metrics, new InFlightWaits(false));
        assertTrue(admission.end());
        assertEquals(Admission.Conclusion.NOT_RECORDED, admission.conclude(201, HEADERS, BODY));
        assertTrue(calls.get() >= 2 && calls.get() <= 5, "tried again within half the 1 s lease, then gave up: " + calls.get() + " attempts");
        assertEquals(KeyStatus.IN_FLIGHT, store.find("tenant", "away").orElseThrow().status());
    }

    @Test
    void aNotKeptMarkerTheStoreCannotTakeIsCountedOnlyAsTheReleaseThatFollows() {
        IdempotencyStore store = open();
        IdempotencyStore away = completionsFailing(store, Integer.MAX_VALUE, new java.util.concurrent.atomic.AtomicInteger());
        Admission admission = admission(away, store.reserve("tenant", "marker-away", "fp"), false);
        org.junit.jupiter.api.Assertions.assertThrows(dev.idempotency.store.StoreUnavailableException.class,
                () -> admission.recordNotKept(200, BoundedResponseBody.TOO_LARGE));
        assertEquals(0, metrics.completions(AgentMetrics.Completion.NOT_KEPT), "no marker was written");
        assertTrue(admission.end());
        admission.release("the response could not be marked as not kept"); // what the exchanges do then
        assertEquals(1, metrics.completions(AgentMetrics.Completion.RELEASED));
        assertEquals(Reservation.Outcome.REACQUIRED, store.reserve("tenant", "marker-away", "fp").outcome(), "a retry runs");
    }

    @Test
    void aNotKeptMarkerForAKeyTakenOverIsCountedTakenOver() {
        afterATakeover("k-marker", stale -> {
            stale.recordNotKept(200, BoundedResponseBody.TOO_LARGE);
            assertTrue(stale.end());
        });
        assertEquals(0, metrics.completions(AgentMetrics.Completion.NOT_KEPT), "no marker was written");
        assertEquals(1, metrics.completions(AgentMetrics.Completion.TAKEN_OVER));
    }

    private static final java.util.List<String[]> SETS_SESSION = java.util.Arrays.asList(
            new String[] {"Content-Type", "text/plain"}, new String[] {"Set-Cookie", "JSESSIONID=S1; Path=/; HttpOnly"},
            new String[] {dev.idempotency.agent.bootstrap.bridge.ServletAccessor.ADDED_COOKIE, "theme=dark; Path=/"});

    private Admission anonymous(IdempotencyStore store, String key) {
        dev.idempotency.agent.core.protocol.TenantScope tenants = new dev.idempotency.agent.core.protocol.TenantScope(config.tenant,
                () -> "secret".getBytes(java.nio.charset.StandardCharsets.UTF_8));
        SessionScope sessions = new SessionScope(tenants, config.credentialCookies,
                new dev.idempotency.agent.core.protocol.Credentials(null, null), "anonymous");
        Reservation r = lifecycle.store().reserve("anonymous", key, "fp");
        return new Admission(store, lifecycle.heartbeat(), r.token(), "test", config, false, metrics, new InFlightWaits(false), sessions, "fp");
    }

    @Test
    void aResponseThatCreatesASessionIsRecordedInThatSessionsScopeWithItsCookie() {
        IdempotencyStore store = open();
        Admission admission = anonymous(store, "session");
        assertTrue(admission.end());
        assertEquals(Admission.Conclusion.RECORDED, admission.conclude(200, SETS_SESSION, BODY));
        Reservation withoutCookie = store.reserve("anonymous", "session", "fp");
        assertEquals(Reservation.Outcome.REPLAY, withoutCookie.outcome());
        assertTrue(withoutCookie.response().headers().stream().noneMatch(h -> dev.idempotency.agent.core.protocol.ReplayHeaders.setsCookie(h.name())),
                "the anonymous scope keeps no cookie, neither a header nor one the application added");
        Reservation retry = store.reserve(new dev.idempotency.agent.core.protocol.TenantScope(config.tenant,
                () -> "secret".getBytes(java.nio.charset.StandardCharsets.UTF_8)).scopeOf(
                new dev.idempotency.agent.core.protocol.Credentials(null, null).add("cookie", "JSESSIONID", "S1")), "session", "fp");
        assertEquals(Reservation.Outcome.REPLAY, retry.outcome(), "a retry with the session's cookie is a replay");
        assertTrue(retry.response().headers().stream().anyMatch(h -> h.name().equals("Set-Cookie")), "with the cookie, in its own scope");
        assertTrue(retry.response().headers().stream().anyMatch(h -> h.name().equals(dev.idempotency.agent.bootstrap.bridge.ServletAccessor.ADDED_COOKIE)),
                "and the cookie the application added");
    }

    @Test
    void aResponseThatCreatesASessionItsScopeCannotTakeIsNotSent() {
        IdempotencyStore store = open();
        IdempotencyStore sessionScopeAway = (IdempotencyStore) java.lang.reflect.Proxy.newProxyInstance(IdempotencyStore.class.getClassLoader(),
                new Class<?>[] {IdempotencyStore.class}, (proxy, method, args) -> {
                    if (method.getName().equals("reserve")) throw new dev.idempotency.store.StoreUnavailableException("the primary is gone", null);
                    try {
                        return method.invoke(store, args);
                    } catch (java.lang.reflect.InvocationTargetException e) {
                        throw e.getCause();
                    }
                });
        Admission admission = anonymous(sessionScopeAway, "session-away");
        assertTrue(admission.end());
        assertEquals(Admission.Conclusion.NOT_RECORDED, admission.conclude(200, SETS_SESSION, BODY),
                "its client would retry with the cookie in a scope that does not know the key");
    }

    @Test
    void temporaryStatusesAndServerErrorsReleaseTheKeySoARetryRuns() {
        IdempotencyStore store = open();
        for (int status : new int[] {429, 408, 425, 503}) {
            String key = "k-" + status;
            Admission a = admission(store, store.reserve("tenant", key, "fp"), false);
            a.end();
            assertEquals(Admission.Conclusion.RELEASED, a.conclude(status, HEADERS, BODY), "status " + status);
            assertEquals(Reservation.Outcome.REACQUIRED, store.reserve("tenant", key, "fp").outcome(), "status " + status);
        }
        Admission conflict = admission(store, store.reserve("tenant", "k-409", "fp"), false);
        conflict.end();
        assertEquals(Admission.Conclusion.RECORDED, conflict.conclude(409, HEADERS, BODY), "other 4xx answers are outcomes");
    }

    @Test
    void underTransactionRecoveryAFailureAfterAnEffectKeepsTheKeyUntilItIsUnknown() throws Exception {
        IdempotencyStore store = open("idempotency.lease", "1s", "idempotency.recovery", "transaction");
        Admission quiet = admission(store, store.reserve("tenant", "quiet", "fp"), false);
        quiet.end();
        assertEquals(Admission.Conclusion.RELEASED, quiet.conclude(500, HEADERS, BODY));
        assertEquals(Reservation.Outcome.REACQUIRED, store.reserve("tenant", "quiet", "fp").outcome(), "nothing happened: it runs again");

        Admission calledOut = admission(store, store.reserve("tenant", "called-out", "fp"), false);
        java.net.HttpURLConnection call = (java.net.HttpURLConnection) new java.net.URL("http://127.0.0.1:9/charges?card=secret").openConnection();
        call.setRequestMethod("POST");
        new dev.idempotency.agent.core.effects.EffectWatch().beforeHttpCall(call); // what the hook in the JDK reports
        calledOut.end();
        calledOut.conclude(500, HEADERS, BODY);
        assertEquals(Reservation.Outcome.OUTCOME_UNKNOWN, await("the kept key's lease to run out",
                () -> store.reserve("tenant", "called-out", "fp").outcome(), o -> o != Reservation.Outcome.IN_FLIGHT));
        assertEquals("HTTP POST http://127.0.0.1:9/charges", store.find("tenant", "called-out").orElseThrow().effects().get(0).detail(),
                "the call is named without its query");
    }

    @Test
    void anAnonymousReplayCarriesNoCookieButAnAuthenticatedOneDoes() {
        IdempotencyStore store = open();
        Admission anonymous = admission(store, store.reserve("anonymous", "k", "fp"), true);
        anonymous.end();
        assertEquals(Admission.Conclusion.RECORDED, anonymous.conclude(201, HEADERS, BODY));
        StoredResponse kept = store.reserve("anonymous", "k", "fp").response();
        assertFalse(kept.headers().stream().anyMatch(h -> h.name().equalsIgnoreCase("Set-Cookie")), kept.toString());
        assertFalse(kept.headers().stream().anyMatch(h -> h.name().equalsIgnoreCase("Date")), "Date is regenerated");
        assertTrue(kept.headers().stream().anyMatch(h -> h.name().equals("Content-Type")));

        Admission alice = admission(store, store.reserve("principal:alice", "k", "fp"), false);
        alice.end();
        alice.conclude(201, HEADERS, BODY);
        assertTrue(store.reserve("principal:alice", "k", "fp").response().headers().stream()
                .anyMatch(h -> h.name().equals("Set-Cookie") && h.value().startsWith("SESSION=new-session")));
    }
}
