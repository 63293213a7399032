package dev.idempotency.agent.core.cli;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.idempotency.store.KeyRecord;
import dev.idempotency.store.KeyStatus;
import dev.idempotency.store.OwnershipToken;
import dev.idempotency.store.Reservation.Outcome;
import dev.idempotency.store.StoreSettings;
import dev.idempotency.store.StoredResponse;
import dev.idempotency.store.jdbc.JdbcIdempotencyStore;
import dev.idempotency.store.testing.Await;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.File;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.List;
import java.util.Properties;
import java.util.concurrent.ThreadLocalRandom;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The operator's command line against a real database, run in-process with the settings an operator would pass.
 * Expected values come from the store's own API, never from the tool's output.
 */
abstract class OperatorCliContract {
    private static final ObjectMapper JSON = new ObjectMapper();
    protected final String table = "cli_" + Long.toHexString(ThreadLocalRandom.current().nextLong() & Long.MAX_VALUE);
    private final List<JdbcIdempotencyStore> opened = new ArrayList<>();

    @TempDir
    Path temp;

    protected abstract String url();

    /** A URL of this database's kind at which nothing listens. */
    protected abstract String unreachableUrl();

    protected Connection connect() throws SQLException {
        return DriverManager.getConnection(url());
    }

    /** A URL for a user who may only read the table; null when this database cannot make one here. */
    protected String readOnlyUserUrl() throws SQLException {
        return null;
    }

    protected abstract String dropColumn(String column);

    @AfterEach
    void dropTables() throws SQLException {
        opened.forEach(JdbcIdempotencyStore::close);
        try (Connection c = connect(); Statement s = c.createStatement()) {
            for (String suffix : new String[] {"", "_schema", "_secret"}) s.execute("DROP TABLE IF EXISTS " + table + suffix);
        }
    }

    protected StoreSettings.Builder settings() {
        return StoreSettings.builder().url(url()).table(table);
    }

    protected JdbcIdempotencyStore store(StoreSettings.Builder settings) {
        JdbcIdempotencyStore store = JdbcIdempotencyStore.open(settings.build());
        opened.add(store);
        return store;
    }

    protected JdbcIdempotencyStore store() {
        return store(settings());
    }

    /** Outcome of one command line. */
    static final class Run {
        final int exit;
        final String out;
        final String err;

        Run(int exit, String out, String err) {
            this.exit = exit;
            this.out = out;
            this.err = err;
        }

        @Override
        public String toString() {
            return "exit " + exit + "\n--- out\n" + out + "--- err\n" + err;
        }
    }

    protected Run cli(String stdin, String... args) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        CliConsole console = new CliConsole(new PrintStream(out, true), new PrintStream(err, true),
                new ByteArrayInputStream(stdin.getBytes(StandardCharsets.UTF_8)));
        int exit = new OperatorCli(console, new Properties(), Collections.<String, String>emptyMap(), new File("idempotency-agent.jar")).run(args);
        return new Run(exit, new String(out.toByteArray(), StandardCharsets.UTF_8), new String(err.toByteArray(), StandardCharsets.UTF_8));
    }

    /** The command with the store options an operator passes. */
    protected Run answering(String stdin, String... args) {
        List<String> all = new ArrayList<>(Arrays.asList("--url", url(), "--table", table));
        all.addAll(Arrays.asList(args));
        return cli(stdin, all.toArray(new String[0]));
    }

    protected Run onStore(String... args) {
        return answering("", args);
    }

    private static StoredResponse response(int status, String body) {
        return new StoredResponse(status, Collections.singletonList(new StoredResponse.Header("Content-Type", "application/json")),
                body.getBytes(StandardCharsets.UTF_8));
    }

    /** A key whose owner's lease ran out and the sweeper marked: what a crash leaves under reconcile. */
    protected void unknownKey(JdbcIdempotencyStore store, String scope, String key) {
        JdbcIdempotencyStore shortLease = store(settings().lease(Duration.ofMillis(200)).ttl(Duration.ofHours(1)));
        shortLease.reserve(scope, key, "fp");
        Await.until("the lease of " + key + " to run out", Duration.ofSeconds(10), () -> {
            shortLease.sweepExpiredLeases();
            return store.find(scope, key).get().status();
        }, s -> s == KeyStatus.UNKNOWN);
    }

    // ---- keys list

    @Test
    void listShowsEveryKeyAndFiltersByStatusAndScope() throws Exception {
        JdbcIdempotencyStore store = store();
        store.complete(store.reserve("tenant-a", "paid", "fp").token(), response(201, "{\"id\":1}"));
        store.reserve("tenant-a", "running", "fp");
        unknownKey(store, "tenant-b", "crashed");

        Run all = onStore("keys", "list");
        assertEquals(0, all.exit, all.toString());
        for (String key : new String[] {"paid", "running", "crashed"}) assertTrue(all.out.contains(key), all.toString());
        assertTrue(all.out.startsWith("KEY"), all.toString());

        Run unknown = onStore("keys", "list", "--status", "unknown");
        assertEquals(0, unknown.exit, unknown.toString());
        assertTrue(unknown.out.contains("crashed") && !unknown.out.contains("paid") && !unknown.out.contains("running"), unknown.toString());

        Run scoped = onStore("keys", "list", "--scope", "tenant-a", "--json");
        assertEquals(0, scoped.exit, scoped.toString());
        JsonNode keys = JSON.readTree(scoped.out);
        assertEquals(2, keys.size(), scoped.out);
        for (JsonNode node : keys) {
            KeyRecord record = store.find("tenant-a", node.get("key").asText()).get();
            assertEquals(KeyFormat.status(record.status()), node.get("status").asText());
            assertEquals(record.attempts(), node.get("attempts").asInt());
            assertEquals(record.createdAt(), Instant.parse(node.get("createdAt").asText()));
            assertEquals(record.response().map(StoredResponse::status).orElse(null),
                    node.get("responseStatus").isNull() ? null : node.get("responseStatus").asInt());
        }
        Run none = onStore("keys", "list", "--older-than", "1h");
        assertEquals(0, none.exit, none.toString());
        assertEquals("no keys\n", none.out);
    }

    // ---- keys show

    @Test
    void showPrintsTheStoredResponseAsTextOrAsHex() {
        JdbcIdempotencyStore store = store();
        store.complete(store.reserve("s", "text", "fp").token(), response(201, "{\"payment\":\"p-42\"}"));
        byte[] binary = {0, 1, 2, (byte) 0xff, 0x7f};
        store.complete(store.reserve("s", "binary", "fp").token(), new StoredResponse(200, Collections.<StoredResponse.Header>emptyList(), binary));

        Run text = onStore("keys", "show", "s", "text");
        assertEquals(0, text.exit, text.toString());
        assertTrue(text.out.contains("{\"payment\":\"p-42\"}"), text.toString());
        assertTrue(text.out.contains("Content-Type: application/json"), text.toString());
        assertTrue(text.out.contains("completed"), text.toString());

        Run hex = onStore("keys", "show", "s", "binary");
        assertEquals(0, hex.exit, hex.toString());
        assertTrue(hex.out.contains("00 01 02 ff 7f"), hex.toString());

        Run absent = onStore("keys", "show", "s", "absent");
        assertEquals(1, absent.exit, absent.toString());
        assertTrue(absent.err.contains("no key 'absent'"), absent.toString());
    }

    @Test
    void showSaysWhatAnUnknownKeysOwnerHadDoneUnderTransactionRecovery() throws Exception {
        JdbcIdempotencyStore transactional = store(settings().lease(Duration.ofMillis(200)).ttl(Duration.ofHours(1))
                .expiredLeasePolicy(dev.idempotency.store.ExpiredLeasePolicy.TRANSACTION));
        dev.idempotency.store.Reservation crashed = transactional.reserve("s", "called-out", "fp");
        assertTrue(transactional.recordEffect(crashed.token(), dev.idempotency.store.EffectMark.Kind.EXTERNAL,
                "HTTP POST https://psp.example/charges"));
        assertTrue(transactional.recordEffect(crashed.token(), dev.idempotency.store.EffectMark.Kind.KEYED_CALL,
                "HTTP POST https://api.stripe.com/v1/charges Idempotency-Key: 0b0e9c1e-5d47-8c1a-9f00-3c4d5e6f7a8b"));
        Await.until("the key to become unknown", Duration.ofSeconds(10), () -> transactional.reserve("s", "called-out", "fp").outcome(),
                o -> o == dev.idempotency.store.Reservation.Outcome.OUTCOME_UNKNOWN);

        Run text = onStore("keys", "show", "s", "called-out"); // the operator's own settings say nothing of transaction
        assertEquals(0, text.exit, text.toString());
        assertTrue(text.out.contains("unknown"), text.toString());
        assertTrue(text.out.matches("(?s).*\neffect +about to call out at .*: HTTP POST https://psp.example/charges\\n.*"), text.toString());
        Run json = onStore("keys", "show", "s", "called-out", "--json");
        com.fasterxml.jackson.databind.JsonNode effects = JSON.readTree(json.out).get("effects"); // marked in one instant: either order
        com.fasterxml.jackson.databind.JsonNode external = "external".equals(effects.get(0).get("kind").asText()) ? effects.get(0) : effects.get(1);
        assertEquals("external", external.get("kind").asText(), json.toString());
        assertEquals("HTTP POST https://psp.example/charges", external.get("detail").asText());
        // the derived key a call carried, for the operator to look up at the provider
        assertTrue(text.out.contains("about to call out with a derived key (safe to repeat) at "), text.toString());
        assertTrue(text.out.contains(": HTTP POST https://api.stripe.com/v1/charges Idempotency-Key: 0b0e9c1e-5d47-8c1a-9f00-3c4d5e6f7a8b\n"), text.toString());
        com.fasterxml.jackson.databind.JsonNode keyed = external == effects.get(0) ? effects.get(1) : effects.get(0);
        assertEquals("keyed_call", keyed.get("kind").asText(), json.toString());
    }

    // ---- keys resolve / delete

    @Test
    void anUnknownKeyResolvedForRetryRunsAgainAndOnlyAfterConfirmation() {
        JdbcIdempotencyStore store = store();
        unknownKey(store, "s", "crashed");

        Run declined = answering("n\n", "keys", "resolve", "s", "crashed", "--retry");
        assertEquals(1, declined.exit, declined.toString());
        assertEquals(KeyStatus.UNKNOWN, store.find("s", "crashed").get().status());

        Run confirmed = answering("y\n", "keys", "resolve", "s", "crashed", "--retry");
        assertEquals(0, confirmed.exit, confirmed.toString());
        assertEquals(Outcome.REACQUIRED, store.reserve("s", "crashed", "fp").outcome());
    }

    @Test
    void anUnknownKeyResolvedAsCompletedReplaysTheDecidedResponse() throws Exception {
        JdbcIdempotencyStore store = store();
        unknownKey(store, "s", "crashed");
        Path body = temp.resolve("body.json");
        Files.write(body, "{\"status\":\"charged\"}".getBytes(StandardCharsets.UTF_8));

        Run run = onStore("keys", "resolve", "s", "crashed", "--completed", "--status", "201", "--body-file", body.toString(),
                "--content-type", "application/json", "--yes");
        assertEquals(0, run.exit, run.toString());
        StoredResponse replayed = store.reserve("s", "crashed", "fp").response();
        assertEquals(201, replayed.status());
        assertTrue(Arrays.equals(Files.readAllBytes(body), replayed.body()));
        assertEquals("application/json", replayed.headers().get(0).value());
    }

    @Test
    void aKeyInFlightUnderALiveLeaseIsNeitherResolvedNorDeleted() {
        JdbcIdempotencyStore store = store();
        OwnershipToken owner = store.reserve("s", "running", "fp").token();
        for (Run refused : new Run[] {onStore("keys", "resolve", "s", "running", "--retry", "--yes"),
                onStore("keys", "delete", "s", "running", "--yes")}) {
            assertEquals(1, refused.exit, refused.toString());
            assertTrue(refused.err.contains("in flight"), refused.toString());
        }
        assertTrue(store.complete(owner, response(200, "{}")), "the owner still owns its key");
    }

    @Test
    void aCompletedKeyIsNotResolvedButCanBeDeleted() {
        JdbcIdempotencyStore store = store();
        store.complete(store.reserve("s", "done", "fp").token(), response(200, "{}"));
        Run resolve = onStore("keys", "resolve", "s", "done", "--retry", "--yes");
        assertEquals(1, resolve.exit, resolve.toString());
        assertTrue(resolve.err.contains("not of unknown outcome"), resolve.toString());

        Run delete = onStore("keys", "delete", "s", "done", "--yes");
        assertEquals(0, delete.exit, delete.toString());
        assertFalse(store.find("s", "done").isPresent());
    }

    // ---- purge

    @Test
    void purgeDeletesExpiredKeysOnlyAndSaysHowMany() {
        JdbcIdempotencyStore shortLived = store(settings().lease(Duration.ofSeconds(1)).ttl(Duration.ofSeconds(1)));
        for (int i = 0; i < 3; i++) shortLived.complete(shortLived.reserve("s", "old-" + i, "fp").token(), response(200, "{}"));
        Instant lastExpiry = shortLived.find("s", "old-2").get().expiresAt();
        JdbcIdempotencyStore store = store();
        store.complete(store.reserve("s", "fresh", "fp").token(), response(200, "{}"));
        Await.until("the short-lived keys to expire", Duration.ofSeconds(10), store::databaseTime, now -> now.isAfter(lastExpiry));

        Run run = onStore("purge");
        assertEquals(0, run.exit, run.toString());
        assertTrue(run.out.contains("done: 3 expired keys deleted"), run.toString());
        assertTrue(store.find("s", "fresh").isPresent());
        assertFalse(store.find("s", "old-0").isPresent());
    }

    // ---- doctor

    @Test
    void doctorPassesAHealthyStoreAndPointsAtUnknownKeys() {
        JdbcIdempotencyStore store = store();
        store.complete(store.reserve("s", "done", "fp").token(), response(200, "{}"));
        unknownKey(store, "s", "crashed");
        Run run = onStore("doctor");
        assertEquals(0, run.exit, run.toString());
        assertFalse(run.out.contains("FAIL"), run.toString());
        for (String check : new String[] {"settings", "store", "clock", "schema", "privileges", "keys"}) {
            assertTrue(run.out.contains("ok    " + check), check + "\n" + run);
        }
        assertTrue(run.out.contains("1 completed") && run.out.contains("1 unknown"), run.toString());
        assertTrue(run.out.contains("'crashed'"), run.toString());
    }

    @Test
    void doctorFailsOnATableMissingAColumnAndNamesIt() throws SQLException {
        store().checkSchema();
        try (Connection c = connect(); Statement s = c.createStatement()) {
            s.execute(dropColumn("attempts"));
        }
        Run run = onStore("doctor");
        assertEquals(1, run.exit, run.toString());
        assertTrue(run.out.contains("FAIL  schema") && run.out.contains("attempts"), run.toString());
    }

    @Test
    void doctorSaysATableThatDoesNotExistYetWillBeCreated() {
        Run run = onStore("doctor");
        assertEquals(0, run.exit, run.toString());
        assertTrue(run.out.contains("warn  schema") && run.out.contains("creates it"), run.toString());
        assertTrue(run.out.contains("create tables"), run.toString());
    }

    @Test
    void doctorFailsWhenTheStoreIsDownWithOneLineAndNoStackTrace() {
        Run run = cli("", "doctor", "--url", unreachableUrl(), "--table", table);
        assertEquals(1, run.exit, run.toString());
        assertTrue(run.out.contains("FAIL  store"), run.toString());
        assertFalse(run.out.contains("\tat ") || run.err.contains("\tat "), run.toString());
    }

    @Test
    void doctorFailsForAUserWhoMayOnlyRead() throws SQLException {
        store().checkSchema();
        String readOnly = readOnlyUserUrl();
        org.junit.jupiter.api.Assumptions.assumeTrue(readOnly != null, "no read-only user can use the store on this database (H2: its connection settings need an admin)");
        Run run = cli("", "doctor", "--url", readOnly, "--table", table);
        assertEquals(1, run.exit, run.toString());
        assertTrue(run.out.contains("FAIL  privileges") && run.out.contains("insert into " + table), run.toString());
        assertFalse(run.out.contains("cannot read " + table), run.toString());
    }

    // ---- faults and usage

    @Test
    void aStoreFaultIsOneLineAndExitCodeOne() {
        Run run = cli("", "keys", "list", "--url", unreachableUrl(), "--table", table);
        assertEquals(1, run.exit, run.toString());
        assertEquals(1, run.err.trim().split("\n").length, run.toString());
        assertTrue(run.err.startsWith("idempotency-agent: "), run.toString());
    }

    @Test
    void usageErrorsPrintTheUsageAndExitWithTwo() {
        for (String[] args : new String[][] {{}, {"frobnicate"}, {"keys"}, {"keys", "list", "--status", "done"},
                {"keys", "show", "only-scope"}, {"keys", "resolve", "s", "k"}, {"keys", "list", "--limit", "0"},
                {"keys", "list", "--bogus"}, {"attach", "not-a-pid"}, {"schema", "oracle"}}) {
            Run run = cli("", args);
            assertEquals(2, run.exit, Arrays.toString(args) + "\n" + run);
            assertTrue((run.err + run.out).contains("usage: java -jar idempotency-agent.jar"), Arrays.toString(args) + "\n" + run);
        }
        Run config = cli("", "keys", "list", "--url", "jdbc:oracle:thin:@db");
        assertEquals(2, config.exit, config.toString());
        assertTrue(config.err.contains("configuration rejected"), config.toString());
    }

    @Test
    void aKeyStartingWithDashesIsNamedAfterTheEndOfOptionsAndATooLongKeyIsAUsageError() {
        JdbcIdempotencyStore store = store();
        store.complete(store.reserve("s", "--odd", "fp").token(), response(200, "{}"));
        Run show = onStore("keys", "show", "--", "s", "--odd");
        assertEquals(0, show.exit, show.toString());
        assertTrue(show.out.contains("--odd"), show.toString());
        Run tooLong = onStore("keys", "show", "s", new String(new char[300]).replace('\0', 'k'));
        assertEquals(2, tooLong.exit, tooLong.toString());
        Run tooOld = onStore("keys", "list", "--older-than", "999999999d");
        assertEquals(2, tooOld.exit, tooOld.toString());
    }

    @Test
    void aMistypedTableIsReportedNotCreated() throws SQLException {
        store().checkSchema();
        Run run = cli("", "keys", "list", "--url", url(), "--table", table + "_typo");
        assertEquals(1, run.exit, run.toString());
        assertTrue(run.err.contains(table + "_typo"), run.toString());
        try (Connection c = connect(); java.sql.ResultSet tables = c.getMetaData().getTables(null, null, "%", null)) {
            while (tables.next()) assertFalse(tables.getString("TABLE_NAME").toLowerCase(java.util.Locale.ROOT).startsWith(table + "_typo"),
                    "the tool made " + tables.getString("TABLE_NAME"));
        }
    }

    @Test
    void schemaPrintsTheDdlThatCreatesAUsableTable() throws SQLException {
        Run run = cli("", "schema", dialectName(), "--table", table);
        assertEquals(0, run.exit, run.toString());
        try (Connection c = connect(); Statement s = c.createStatement()) {
            for (String statement : run.out.split(";\n")) {
                String sql = statement.replaceAll("(?m)^--.*$", "").trim();
                if (!sql.isEmpty()) s.execute(sql);
            }
        }
        JdbcIdempotencyStore validating = store(settings().schemaMode(dev.idempotency.store.SchemaMode.VALIDATE));
        assertEquals(Outcome.ACQUIRED, validating.reserve("s", "k", "fp").outcome());
    }

    protected abstract String dialectName();
}
