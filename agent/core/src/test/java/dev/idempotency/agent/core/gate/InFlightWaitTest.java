package dev.idempotency.agent.core.gate;

import dev.idempotency.agent.core.config.AgentConfig;
import dev.idempotency.agent.core.config.ConfigSource;
import dev.idempotency.agent.core.protocol.Credentials;
import dev.idempotency.agent.core.lifecycle.StoreLifecycle;
import dev.idempotency.agent.core.telemetry.AgentMetrics;
import dev.idempotency.agent.core.telemetry.Outcome;
import dev.idempotency.store.OwnershipToken;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.io.ByteArrayInputStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.List;
import java.util.Properties;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * {@code idempotency.on-in-flight}: duplicates of a running request wait for it and get its replay, against a real
 * (embedded H2) store; the default answers 409 at once.
 */
class InFlightWaitTest {
    private static final byte[] BODY = "{\"amount\":1250}".getBytes(StandardCharsets.UTF_8);
    private static final List<String[]> HEADERS = Collections.singletonList(new String[] {"Content-Type", "application/json"});
    private static final Credentials ANONYMOUS = new Credentials(null, null);

    private final AgentMetrics metrics = new AgentMetrics();
    private final ExecutorService duplicates = Executors.newCachedThreadPool();
    private StoreLifecycle lifecycle;
    private IdempotencyGate gate;

    private final String url = "jdbc:h2:mem:wait-" + java.util.UUID.randomUUID() + ";DB_CLOSE_DELAY=-1";
    private final List<StoreLifecycle> lifecycles = new ArrayList<>();

    private void open(String onInFlight, String... settings) {
        gate = node(onInFlight, settings);
        lifecycle = lifecycles.get(lifecycles.size() - 1);
    }

    /** A gate of its own on the same database: another node. */
    private IdempotencyGate node(String onInFlight, String... settings) {
        Properties p = new Properties();
        p.setProperty("idempotency.store.url", url);
        if (onInFlight != null) p.setProperty("idempotency.on-in-flight", onInFlight);
        for (int i = 0; i < settings.length; i += 2) p.setProperty(settings[i], settings[i + 1]);
        AgentConfig config = AgentConfig.load(ConfigSource.of(p, Collections.emptyMap()));
        StoreLifecycle node = new StoreLifecycle(config.store, config.sweepInterval, metrics);
        lifecycles.add(node);
        return new IdempotencyGate(config, node, metrics);
    }

    @AfterEach
    void close() throws InterruptedException {
        duplicates.shutdownNow();
        assertTrue(duplicates.awaitTermination(20, TimeUnit.SECONDS));
        for (StoreLifecycle node : lifecycles) node.store().close();
    }

    private Decision decide(String key) {
        return decide(gate, key);
    }

    private static Decision decide(IdempotencyGate at, String key) {
        RequestCapture capture = at.capture("POST", "/payments", null, "application/json", Collections.singletonList(key),
                () -> new ByteArrayInputStream(BODY), BODY.length);
        assertNull(capture.problem());
        return at.decide(capture, ANONYMOUS, null);
    }

    /** Sends {@code count} duplicates of the key on threads of their own, once all of them wait for its holder. */
    private List<Future<Decision>> waitingDuplicates(String key, int count) {
        List<Thread> waiting = Collections.synchronizedList(new ArrayList<>());
        List<Future<Decision>> answers = new ArrayList<>();
        for (int i = 0; i < count; i++) {
            answers.add(duplicates.submit(() -> {
                waiting.add(Thread.currentThread());
                return decide(key);
            }));
        }
        while (waiting.size() < count) Thread.yield();
        awaitWaiting(new ArrayList<>(waiting));
        return answers;
    }

    /** Waits until every one of the threads is parked in the agent's wait for the key's holder. */
    private void awaitWaiting(List<Thread> threads) {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
        for (Thread t : threads) {
            while (!waitingForHolder(t)) {
                assertTrue(System.nanoTime() < deadline, t + " never waited for the key's holder");
                Thread.yield();
            }
        }
    }

    private static boolean waitingForHolder(Thread t) {
        if (t.getState() != Thread.State.TIMED_WAITING) return false;
        for (StackTraceElement frame : t.getStackTrace()) {
            if (frame.getClassName().equals(InFlightWaits.Signal.class.getName()) && frame.getMethodName().equals("awaitEndAfter")) return true;
        }
        return false;
    }

    @Test
    void byDefaultADuplicateOfARunningRequestGets409AtOnce() {
        open(null);
        Decision first = decide("k-default");
        assertNotNull(first.admission());
        long start = System.nanoTime();
        Decision duplicate = decide("k-default");
        assertEquals(Outcome.IN_FLIGHT, duplicate.outcome());
        assertEquals(409, duplicate.answer().status());
        assertTrue(System.nanoTime() - start < TimeUnit.SECONDS.toNanos(5), "answered without waiting for the holder");
        first.admission().end();
        first.admission().conclude(201, HEADERS, "{\"id\":\"ch_1\"}".getBytes(StandardCharsets.UTF_8));
    }

    @Test
    void aHundredDuplicatesWaitForTheFirstAndAllGetItsReplay() throws Exception {
        open("wait:20s");
        Decision first = decide("k-hundred");
        assertNotNull(first.admission());
        List<Future<Decision>> answers = waitingDuplicates("k-hundred", 100);
        for (Future<Decision> answer : answers) assertFalse(answer.isDone(), "a duplicate was answered while the first ran");

        byte[] response = "{\"id\":\"ch_1\"}".getBytes(StandardCharsets.UTF_8);
        first.admission().end();
        assertEquals(Admission.Conclusion.RECORDED, first.admission().conclude(201, HEADERS, response));
        for (Future<Decision> answer : answers) {
            Decision d = answer.get(20, TimeUnit.SECONDS);
            assertEquals(Outcome.REPLAYED, d.outcome());
            assertEquals(201, d.answer().status());
            assertArrayEquals(response, d.answer().body());
        }
        assertEquals(0, gate.inFlightWaits().keysKnown(), "nothing stays behind for a key nobody waits for");
    }

    @Test
    void whenTheFirstGivesItsKeyUpOneWaiterRunsAndTheOthersGetItsReplay() throws Exception {
        open("wait:20s");
        Decision first = decide("k-released");
        List<Future<Decision>> answers = waitingDuplicates("k-released", 5);
        first.admission().end();
        assertEquals(Admission.Conclusion.RELEASED, first.admission().conclude(503, HEADERS, new byte[0]));

        // exactly one waiter now owns the key and runs; the rest wait for it in turn
        Decision runner = null;
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
        while (runner == null) {
            for (Future<Decision> answer : answers) {
                if (answer.isDone()) {
                    assertNull(runner, "two waiters ran");
                    runner = answer.get();
                }
            }
            assertTrue(System.nanoTime() < deadline, "no waiter took the released key");
            Thread.yield();
        }
        assertEquals(Outcome.EXECUTED, runner.outcome());
        byte[] response = "{\"id\":\"ch_2\"}".getBytes(StandardCharsets.UTF_8);
        runner.admission().end();
        runner.admission().conclude(201, HEADERS, response);
        int replays = 0;
        for (Future<Decision> answer : answers) {
            Decision d = answer.get(20, TimeUnit.SECONDS);
            if (d == runner) continue;
            assertEquals(Outcome.REPLAYED, d.outcome());
            assertArrayEquals(response, d.answer().body());
            replays++;
        }
        assertEquals(4, replays);
    }

    @Test
    void pastItsWaitADuplicateGets409WithRetryAfter() throws Exception {
        open("wait:300ms");
        Decision first = decide("k-slow");
        long start = System.nanoTime();
        Decision duplicate = decide("k-slow");
        long waited = System.nanoTime() - start;
        assertEquals(Outcome.IN_FLIGHT, duplicate.outcome());
        assertEquals(409, duplicate.answer().status());
        assertTrue(waited >= TimeUnit.MILLISECONDS.toNanos(300), "gave up after " + waited / 1_000_000 + " ms");
        boolean retryAfter = false;
        for (String[] h : duplicate.answer().headers()) retryAfter |= h[0].equalsIgnoreCase("Retry-After");
        assertTrue(retryAfter, "409 carries Retry-After");
        first.admission().end();
        first.admission().conclude(201, HEADERS, new byte[0]);
        assertEquals(0, gate.inFlightWaits().keysKnown(), "nothing stays behind once nobody waits for or holds the key");
    }

    @Test
    void anInterruptedWaitEndsWith409AndKeepsTheInterrupt() throws Exception {
        open("wait:20s");
        Decision first = decide("k-interrupted");
        boolean[] interrupted = new boolean[1];
        List<Thread> waiting = Collections.synchronizedList(new ArrayList<>());
        Future<Decision> answer = duplicates.submit(() -> {
            waiting.add(Thread.currentThread());
            Decision d = decide("k-interrupted");
            interrupted[0] = Thread.currentThread().isInterrupted();
            return d;
        });
        while (waiting.isEmpty()) Thread.yield();
        awaitWaiting(waiting);
        waiting.get(0).interrupt();
        assertEquals(Outcome.IN_FLIGHT, answer.get(20, TimeUnit.SECONDS).outcome());
        assertTrue(interrupted[0]);
        first.admission().end();
        first.admission().conclude(201, HEADERS, new byte[0]);
    }

    @Test
    void aResponseThatStreamsWithoutBeingKeptEndsTheWaitAtOnce() throws Exception {
        open("wait:30s");
        Decision first = decide("k-streaming");
        List<Future<Decision>> answers = waitingDuplicates("k-streaming", 3);
        first.admission().recordNotKept(200, "too large"); // the response now streams; its end comes much later
        for (Future<Decision> answer : answers) {
            assertEquals(Outcome.NOT_KEPT, answer.get(10, TimeUnit.SECONDS).outcome(), "waited for the stream's end");
        }
        first.admission().end();
    }

    @Test
    void aHolderOnAnotherNodeIsLookedForUntilItEnds() throws Exception {
        open("wait:30s");
        IdempotencyGate otherNode = node(null);
        Decision first = decide(otherNode, "k-elsewhere");
        List<Future<Decision>> answers = waitingDuplicates("k-elsewhere", 3);
        byte[] response = "{\"id\":\"ch_9\"}".getBytes(StandardCharsets.UTF_8);
        first.admission().end();
        first.admission().conclude(201, HEADERS, response);
        for (Future<Decision> answer : answers) {
            Decision d = answer.get(10, TimeUnit.SECONDS);
            assertEquals(Outcome.REPLAYED, d.outcome());
            assertArrayEquals(response, d.answer().body());
        }
    }

    /**
     * A duplicate can find its key in flight before the request of this JVM that reserved it has said it holds it here.
     * Once it has, the duplicate waits for its end and stops polling the store (no connection while it waits).
     */
    @Test
    void aWaiterStopsPollingOnceTheHolderHereSaysItHoldsTheKey() throws Exception {
        open("wait:30s");
        IdempotencyGate reservedFirst = node(null);
        Decision first = decide(reservedFirst, "k-late-holder");
        List<Future<Decision>> answers = waitingDuplicates("k-late-holder", 1);
        OwnershipToken held = first.admission().token();
        gate.inFlightWaits().held(held.scope(), held.key()); // the holder here says so only now
        long looksBefore = metrics.reserveLatency().count();
        // the holder's application runs on: long enough for several polls of a key held elsewhere (50, 100, 200 ms)
        LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(450));
        assertEquals(looksBefore, metrics.reserveLatency().count(), "the waiter polled the store while its key's holder was here");
        gate.inFlightWaits().notHeld(held.scope(), held.key());
        byte[] response = "{\"id\":\"ch_late\"}".getBytes(StandardCharsets.UTF_8);
        first.admission().end();
        first.admission().conclude(201, HEADERS, response);
        Decision d = answers.get(0).get(10, TimeUnit.SECONDS);
        assertEquals(Outcome.REPLAYED, d.outcome());
        assertArrayEquals(response, d.answer().body());
    }

    @Test
    void aWaiterWhoseStoreFailsGets409NeverAnUnprotectedRun() throws Exception {
        open("wait:30s", "idempotency.failure-mode", "open");
        IdempotencyGate otherNode = node(null);
        Decision first = decide(otherNode, "k-store-lost");
        List<Future<Decision>> answers = waitingDuplicates("k-store-lost", 1);
        lifecycle.store().close(); // this node loses its store while its duplicate waits
        Decision d = answers.get(0).get(20, TimeUnit.SECONDS);
        assertEquals(Outcome.IN_FLIGHT, d.outcome(), "the key was in flight: the application must not run");
        assertEquals(409, d.answer().status());
        first.admission().end();
        first.admission().conclude(201, HEADERS, new byte[0]);
    }

    @Test
    void anAbandonedRequestNoLongerCountsAsHoldingItsKeyHere() {
        open("wait:30s");
        Decision first = decide("k-abandoned");
        assertEquals(1, gate.inFlightWaits().keysKnown());
        first.admission().abandonedByContainer();
        assertEquals(0, gate.inFlightWaits().keysKnown(), "an abandoned request's end may never come");
        first.admission().end();
        first.admission().conclude(201, HEADERS, new byte[0]);
        assertEquals(0, gate.inFlightWaits().keysKnown());
    }

    @Test
    void theSettingSaysWhatItAccepts() {
        for (String good : Arrays.asList("conflict", "wait:5s", "WAIT:250ms", "wait:1m")) {
            Properties p = new Properties();
            p.setProperty("idempotency.on-in-flight", good);
            AgentConfig.load(ConfigSource.of(p, Collections.emptyMap()));
        }
        for (String bad : Arrays.asList("wait", "wait:", "wait:0s", "wait:2m", "queue", "wait:5")) {
            Properties p = new Properties();
            p.setProperty("idempotency.on-in-flight", bad);
            try {
                AgentConfig.load(ConfigSource.of(p, Collections.emptyMap()));
                throw new AssertionError("accepted idempotency.on-in-flight=" + bad);
            } catch (dev.idempotency.agent.core.config.ConfigException e) {
                assertTrue(e.getMessage().contains("idempotency.on-in-flight") && e.getMessage().contains("wait:DURATION"), e.getMessage());
            }
        }
    }
}
