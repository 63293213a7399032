package dev.idempotency.agent.core.cli;

import dev.idempotency.store.KeyStatus;
import dev.idempotency.store.OwnershipToken;
import dev.idempotency.store.Reservation.Outcome;
import dev.idempotency.store.StoreSettings;
import dev.idempotency.store.StoredResponse;
import dev.idempotency.store.redis.RedisIdempotencyStore;
import dev.idempotency.store.redis.RedisTestServer;
import dev.idempotency.store.testing.Await;
import dev.idempotency.store.testing.LocalServers;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.File;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.List;
import java.util.Properties;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The operator's tool on a Redis store: keys, purge and doctor, against the test Redis server; a subclass runs the
 * same on another Redis topology by naming its URL and how a key's time is moved behind the store's back.
 */
class RedisOperatorCliTest {
    protected final String prefix = RedisTestServer.randomPrefix();
    private final List<RedisIdempotencyStore> opened = new ArrayList<>();

    protected String url() {
        return RedisTestServer.url();
    }

    protected void moveTime(String scope, String key, String field, long seconds) {
        RedisTestServer.setTime(prefix, scope, key, field, seconds);
    }

    protected void dropPrefix() {
        RedisTestServer.dropPrefix(prefix);
    }

    private RedisIdempotencyStore store(StoreSettings.Builder settings) {
        RedisIdempotencyStore store = RedisIdempotencyStore.open(settings.build());
        opened.add(store);
        store.checkSchema();
        return store;
    }

    private StoreSettings.Builder settings() {
        return StoreSettings.builder().url(url()).table(prefix);
    }

    @BeforeEach
    void layout() {
        store(settings()); // writes the prefix's layout, as the agent does on its first keyed request
    }

    @AfterEach
    void dropKeys() {
        opened.forEach(RedisIdempotencyStore::close);
        dropPrefix();
    }

    static OperatorCliContract.Run cli(String stdin, String... args) {
        return withProperties(new Properties(), stdin, args);
    }

    /** The command in a JVM started with these system properties. */
    private static OperatorCliContract.Run withProperties(Properties system, String stdin, String... args) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        CliConsole console = new CliConsole(new PrintStream(out, true), new PrintStream(err, true),
                new ByteArrayInputStream(stdin.getBytes(StandardCharsets.UTF_8)));
        int exit = new OperatorCli(console, system, Collections.<String, String>emptyMap(), new File("idempotency-agent.jar")).run(args);
        return new OperatorCliContract.Run(exit, new String(out.toByteArray(), StandardCharsets.UTF_8), new String(err.toByteArray(), StandardCharsets.UTF_8));
    }

    private OperatorCliContract.Run onStore(String stdin, String... args) {
        List<String> all = new ArrayList<>(Arrays.asList("--url", url(), "--table", prefix));
        all.addAll(Arrays.asList(args));
        return cli(stdin, all.toArray(new String[0]));
    }

    private static StoredResponse response(int status, String body) {
        return new StoredResponse(status, Collections.singletonList(new StoredResponse.Header("Content-Type", "application/json")),
                body.getBytes(StandardCharsets.UTF_8));
    }

    /** A key whose owner's lease ran out and the sweep marked: what a crash leaves under reconcile. */
    private void unknownKey(RedisIdempotencyStore store, String scope, String key) {
        store.reserve(scope, key, "fp");
        moveTime(scope, key, "lease", -5);
        Await.until("the sweep to mark " + key, Duration.ofSeconds(10), () -> {
            store.sweepExpiredLeases();
            return store.find(scope, key).get().status();
        }, s -> s == KeyStatus.UNKNOWN);
    }

    @Test
    void keysAreListedShownResolvedAndDeleted() {
        RedisIdempotencyStore store = store(settings());
        store.complete(store.reserve("tenant-a", "paid", "fp").token(), response(201, "{\"id\":1}"));
        OwnershipToken running = store.reserve("tenant-a", "running", "fp").token();
        unknownKey(store, "tenant-b", "crashed");

        OperatorCliContract.Run all = onStore("", "keys", "list");
        assertEquals(0, all.exit, all.toString());
        for (String key : new String[] {"paid", "running", "crashed"}) assertTrue(all.out.contains(key), all.toString());
        OperatorCliContract.Run unknown = onStore("", "keys", "list", "--status", "unknown");
        assertTrue(unknown.out.contains("crashed") && !unknown.out.contains("paid"), unknown.toString());

        OperatorCliContract.Run show = onStore("", "keys", "show", "tenant-a", "paid");
        assertEquals(0, show.exit, show.toString());
        assertTrue(show.out.contains("201") && show.out.contains("{\"id\":1}"), show.toString());

        OperatorCliContract.Run declined = onStore("n\n", "keys", "resolve", "tenant-b", "crashed", "--retry");
        assertEquals(1, declined.exit, declined.toString());
        assertEquals(KeyStatus.UNKNOWN, store.find("tenant-b", "crashed").get().status());
        OperatorCliContract.Run confirmed = onStore("y\n", "keys", "resolve", "tenant-b", "crashed", "--retry");
        assertEquals(0, confirmed.exit, confirmed.toString());
        assertEquals(Outcome.REACQUIRED, store.reserve("tenant-b", "crashed", "fp").outcome());

        OperatorCliContract.Run inFlight = onStore("", "keys", "delete", "tenant-a", "running", "--yes");
        assertEquals(1, inFlight.exit, inFlight.toString());
        assertTrue(inFlight.err.contains("in flight"), inFlight.toString());
        assertTrue(store.complete(running, response(200, "{}")), "the owner still owns its key");
        OperatorCliContract.Run delete = onStore("", "keys", "delete", "tenant-a", "paid", "--yes");
        assertEquals(0, delete.exit, delete.toString());
        assertFalse(store.find("tenant-a", "paid").isPresent());
    }

    @Test
    void purgeDeletesExpiredKeysOnly() {
        RedisIdempotencyStore shortLived = store(settings().lease(Duration.ofSeconds(1)).ttl(Duration.ofSeconds(1)));
        for (int i = 0; i < 3; i++) shortLived.complete(shortLived.reserve("s", "old-" + i, "fp").token(), response(200, "{}"));
        Instant lastExpiry = shortLived.find("s", "old-2").get().expiresAt();
        RedisIdempotencyStore store = store(settings());
        store.complete(store.reserve("s", "fresh", "fp").token(), response(200, "{}"));
        Await.until("the short-lived keys to expire", Duration.ofSeconds(10), store::databaseTime, now -> now.isAfter(lastExpiry));

        OperatorCliContract.Run run = onStore("", "purge");
        assertEquals(0, run.exit, run.toString());
        assertTrue(run.out.contains("done: 3 expired keys deleted from " + prefix), run.toString());
        assertTrue(store.find("s", "fresh").isPresent());
        assertFalse(store.find("s", "old-0").isPresent());
    }

    @Test
    void doctorChecksTheServerAndPointsAtUnknownKeys() {
        RedisIdempotencyStore store = store(settings());
        store.complete(store.reserve("s", "done", "fp").token(), response(200, "{}"));
        unknownKey(store, "s", "crashed");
        OperatorCliContract.Run run = onStore("", "doctor");
        assertEquals(0, run.exit, run.toString());
        assertFalse(run.out.contains("FAIL"), run.toString());
        for (String check : new String[] {"settings", "store", "clock", "server", "eviction", "schema", "keys"}) {
            assertTrue(run.out.contains("ok    " + check), check + "\n" + run);
        }
        assertTrue(run.out.contains("persistence") && run.out.contains("replicas"), run.toString());
        assertTrue(run.out.contains("1 completed") && run.out.contains("1 unknown") && run.out.contains("'crashed'"), run.toString());
    }

    @Test
    void doctorSaysAPrefixNotWrittenYetWillBeUnderSchemaModeCreate() {
        OperatorCliContract.Run run = cli("", "doctor", "--url", url(), "--table", prefix + "new");
        assertEquals(0, run.exit, run.toString());
        assertTrue(run.out.contains("warn  schema") && run.out.contains("writes it on its first keyed request"), run.toString());
        assertFalse(run.out.contains("ok    keys"), "no keys counted under a prefix that is not there\n" + run);
    }

    @Test
    void doctorFailsOnWhatWouldTurnRequestsAwayOrLoseKeys() throws Exception {
        Properties threeReplicas = new Properties();
        threeReplicas.setProperty("idempotency.store.replica-acks", "3");
        OperatorCliContract.Run acks = withProperties(threeReplicas, "", "doctor", "--url", url(), "--table", prefix);
        assertEquals(1, acks.exit, acks.toString());
        assertTrue(acks.out.contains("FAIL  replicas") && acks.out.contains("fewer than replica-acks 3"), acks.toString());

        Properties validate = new Properties();
        validate.setProperty("idempotency.store.schema", "validate");
        OperatorCliContract.Run typo = withProperties(validate, "", "doctor", "--url", url(), "--table", prefix + "x");
        assertEquals(1, typo.exit, typo.toString());
        assertTrue(typo.out.contains("FAIL  schema") && typo.out.contains("no store with prefix '" + prefix + "x'"), typo.toString());
        OperatorCliContract.Run list = cli("", "keys", "list", "--url", url(), "--table", prefix + "x");
        assertEquals(1, list.exit, list.toString());
        assertTrue(list.err.contains(prefix + "x"), list.toString());

        int closed = LocalServers.freePort();
        OperatorCliContract.Run down = cli("", "doctor", "--url", "redis://operator:hunter2@127.0.0.1:" + closed);
        assertEquals(1, down.exit, down.toString());
        assertTrue(down.out.contains("FAIL  store") && down.out.contains("127.0.0.1:" + closed), down.toString());
        assertFalse(down.out.contains("hunter2") || down.err.contains("hunter2") || down.out.contains("\tat "), down.toString());
    }
}
