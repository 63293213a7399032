package dev.idempotency.e2e;

import dev.idempotency.e2e.support.Client;
import dev.idempotency.e2e.scenarios.PaymentsScenarios;
import dev.idempotency.e2e.support.ProviderStub;
import dev.idempotency.e2e.servers.TomcatServer;
import dev.idempotency.store.testing.Await;
import dev.idempotency.store.testing.TestDatabase;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.io.IOException;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.UUID;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * idempotency.recovery=transaction on a stock Tomcat 9 whose application writes to its own PostgreSQL or MariaDB
 * database through the container's DataSource (Tomcat's DBCP pool, the driver in lib/), by hand and through Spring's
 * {@code @Transactional}, and calls a payment provider over HTTP. The server is killed with SIGKILL while keyed
 * requests stand (a) after their write and before their commit, (b) after their commit and before their response was
 * recorded, (c) after their outbound call to a host not listed in idempotency.outbound.hosts, (d) after a commit on a
 * thread of an asynchronous cycle (which the agent does not watch: the request falls back to reconcile), (e) after
 * their outbound call to a listed host, which carried a derived key (the provider honours it as Stripe does); the same
 * keys are then sent again. Every case is asserted on the application's rows and the provider's executions and keys,
 * not only on status codes.
 */
public class TransactionRecoveryTomcat9IT {
    /** Kills per database: 5 x 20 standing requests (4 per case) kept the whole CI run near its 30 minutes. */
    private static final int ROUNDS = 5;
    /** Requests of each case standing at every kill, half of them through Spring. */
    private static final int PER_CASE = 4;
    private static final String HOLD = "60000";
    private static final Duration AWAIT = Duration.ofSeconds(60);

    private enum Case { BEFORE_COMMIT, AFTER_COMMIT, AFTER_CALL, AFTER_ASYNC_COMMIT, AFTER_KEYED_CALL }

    private static final class Attempt {
        public final Case at;
        public final boolean spring;
        public final String key = UUID.randomUUID().toString();
        public final String transfer = "t" + UUID.randomUUID().toString().replace("-", "").substring(0, 20);

        public Attempt(Case at, boolean spring) {
            this.at = at;
            this.spring = spring;
        }

        public String body() {
            return "{\"transfer\":\"" + transfer + "\",\"amount\":" + (transfer.hashCode() & 0xffff) + "}";
        }

        public String path() {
            return at == Case.AFTER_CALL || at == Case.AFTER_KEYED_CALL ? "/payouts" : at == Case.AFTER_ASYNC_COMMIT ? "/async-transfers" : spring ? "/spring/transfers" : "/transfers";
        }

        public String stage() {
            return at == Case.BEFORE_COMMIT ? "written" : at == Case.AFTER_CALL || at == Case.AFTER_KEYED_CALL ? "called-out" : "committed";
        }

        /** Whether a retry after the kill runs the request again (nothing it did is unsafe to repeat). */
        public boolean runsAgain() {
            return at == Case.BEFORE_COMMIT || at == Case.AFTER_KEYED_CALL;
        }
    }

    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {"postgresql", "mariadb"})
    public void afterAKillTheApplicationsOwnTransactionDecidesWhetherARetryRuns(String database) throws Exception {
        TestDatabase db = "postgresql".equals(database) ? TestDatabase.postgres() : TestDatabase.mariadb();
        String suffix = Long.toHexString(System.nanoTime());
        String table = "transfers_" + suffix;
        String storeTable = "idem_tx_" + suffix;
        ProviderStub provider = new ProviderStub();
        Random random = new Random();
        int[] decided = new int[Case.values().length];
        try (TomcatServer server = TomcatServer.transfersTomcat9()) {
            server.library(driverJar(database)).context(contextXml(db, database));
            server.set("idempotency.recovery", "transaction").set("idempotency.lease", "2s").set("idempotency.sweep-interval", "1s")
                    .set("idempotency.store.url", db.url).set("idempotency.store.table", storeTable).set("transfers.table", table)
                    .set("idempotency.outbound.hosts", "127.0.0.1"); // localhost reaches the same provider, unlisted
            if (db.user != null) server.set("idempotency.store.user", db.user);
            if (db.password != null) server.set("idempotency.store.password", db.password);
            server.application("/shop", "/stages");
            server.start();
            for (int round = 0; round < ROUNDS; round++) {
                Client client = new Client(server.baseUrl());
                List<Attempt> attempts = new ArrayList<>();
                for (Case at : Case.values()) {
                    for (int i = 0; i < PER_CASE; i++) attempts.add(new Attempt(at, i % 2 == 1));
                }
                for (Attempt a : attempts) {
                    HttpRequest.Builder request = request(client, a, provider)
                            .header(a.at == Case.BEFORE_COMMIT ? "X-Pause-Before-Commit-Ms" : a.at == Case.AFTER_CALL || a.at == Case.AFTER_KEYED_CALL
                                    ? "X-Pause-After-Call-Ms" : "X-Pause-After-Commit-Ms", HOLD);
                    client.sendAsync(request);
                }
                for (Attempt a : attempts) {
                    Await.until(a.transfer + " to reach " + a.stage(), AWAIT, () -> stage(client, a.transfer), a.stage()::equals);
                }
                Thread.sleep(random.nextInt(400)); // a random moment inside every request's window: what is awaited is reached
                server.kill();
                // What the crash left: rows of committed transfers, calls the provider took.
                for (Attempt a : attempts) {
                    long expected = a.at == Case.AFTER_COMMIT || a.at == Case.AFTER_ASYNC_COMMIT ? 1 : 0;
                    assertEquals(expected, rows(db, table, a.transfer), a.at + " " + a.transfer + ": rows left by the crash");
                    if (a.at == Case.AFTER_CALL || a.at == Case.AFTER_KEYED_CALL) {
                        assertEquals(1, provider.executions(a.transfer), "the provider was called once");
                    }
                }
                server.start();
                Client again = new Client(server.baseUrl());
                for (Attempt a : attempts) {
                    HttpResponse<byte[]> retry = Await.until("the retry of " + a.key + " to be decided", AWAIT, () -> send(again, request(again, a, provider)),
                            r -> r.statusCode() != 409 || PaymentsScenarios.text(r).contains("outcome-unknown"));
                    if (a.runsAgain()) {
                        if (retry.statusCode() != 201) {
                            throw new AssertionError(a.at + (a.spring ? " (Spring)" : " (servlet)") + ": " + PaymentsScenarios.text(retry)
                                    + "; marks " + markList(db, storeTable, a.key));
                        }
                        assertEquals(null, retry.headers().firstValue("Idempotent-Replayed").orElse(null), "it ran again");
                        if (a.at == Case.BEFORE_COMMIT) assertEquals(1, rows(db, table, a.transfer), "exactly one transfer after the rerun");
                        if (a.at == Case.AFTER_KEYED_CALL) {
                            List<String> keys = provider.keys(a.transfer);
                            assertEquals(2, keys.size(), "called by the first run and the rerun: " + keys);
                            assertTrue(!"null".equals(keys.get(0)) && keys.get(0).equals(keys.get(1)), "the same derived key twice: " + keys);
                            assertEquals(1, provider.executions(a.transfer), "the provider charged once");
                        }
                        HttpResponse<byte[]> replay = send(again, request(again, a, provider));
                        assertEquals("true", replay.headers().firstValue("Idempotent-Replayed").orElse(null));
                        assertArrayEquals(retry.body(), replay.body());
                    } else {
                        PaymentsScenarios.assertProblem(retry, 409, "outcome-unknown");
                        PaymentsScenarios.assertProblem(send(again, request(again, a, provider)), 409, "outcome-unknown");
                        if (a.at == Case.AFTER_CALL) {
                            assertEquals(1, provider.executions(a.transfer), "the provider was not called again");
                            assertEquals(List.of("null"), provider.keys(a.transfer), "no key for a host not listed");
                        }
                        else assertEquals(1, rows(db, table, a.transfer), "never run a second time");
                        List<String> marks = marks(db, storeTable, a.key);
                        String expected = a.at == Case.AFTER_COMMIT ? "COMMIT commit"
                                : a.at == Case.AFTER_ASYNC_COMMIT ? "UNWATCHED asynchronous processing on threads the agent does not watch"
                                : "EXTERNAL HTTP POST " + provider.url("localhost") + "/" + a.transfer;
                        assertEquals(List.of(expected), marks, "why the outcome is unknown");
                    }
                    decided[a.at.ordinal()]++;
                }
            }
            String agentLines = server.agentLines();
            assertTrue(!agentLines.contains("NOT watched") && !agentLines.contains("could not watch"), agentLines);
        } finally {
            provider.close();
            dropTables(db, table, storeTable);
        }
        System.out.println("[transaction recovery on " + database + "] kills: " + ROUNDS + "; decided after a kill: before commit "
                + decided[0] + " (all ran once more), after commit " + decided[1] + " (all outcome-unknown), after an HTTP call "
                + decided[2] + " (all outcome-unknown), after an asynchronous commit " + decided[3] + " (all outcome-unknown), after an HTTP"
                + " call with a derived key " + decided[4] + " (all ran once more, the provider charging once)");
        for (int n : decided) assertTrue(n >= ROUNDS * PER_CASE, "at least " + ROUNDS * PER_CASE + " of each case");
    }

    /** The attempt's request; for payouts, the provider under the name its case calls it by, through the client its case uses. */
    private static HttpRequest.Builder request(Client client, Attempt a, ProviderStub provider) {
        return client.request(a.path()).header("Idempotency-Key", a.key).header("Content-Type", "application/json")
                .header("X-Provider-Url", provider.url(a.at == Case.AFTER_CALL ? "localhost" : "127.0.0.1"))
                .header("X-Client", a.spring ? "jdk" : "url-connection") // the JDK's HttpClient or HttpURLConnection
                .POST(HttpRequest.BodyPublishers.ofString(a.body()));
    }

    private static HttpResponse<byte[]> send(Client client, HttpRequest.Builder request) {
        try {
            return client.send(request);
        } catch (Exception e) {
            throw new IllegalStateException(e);
        }
    }

    private static String stage(Client client, String transfer) {
        try {
            return new String(client.send(client.request("/stages?transfer=" + transfer)).body(), StandardCharsets.UTF_8);
        } catch (Exception e) {
            throw new IllegalStateException(e);
        }
    }

    private static Path driverJar(String database) throws Exception {
        Class<?> driver = Class.forName("postgresql".equals(database) ? "org.postgresql.Driver" : "org.mariadb.jdbc.Driver");
        return Path.of(driver.getProtectionDomain().getCodeSource().getLocation().toURI());
    }

    /** The DataSource as an operator declares it for Tomcat: its pool (DBCP), its driver, its URL. */
    private static String contextXml(TestDatabase db, String database) {
        String driver = "postgresql".equals(database) ? "org.postgresql.Driver" : "org.mariadb.jdbc.Driver";
        StringBuilder resource = new StringBuilder("<Resource name=\"jdbc/transfers\" auth=\"Container\" type=\"javax.sql.DataSource\"")
                .append(" maxTotal=\"40\" maxWaitMillis=\"10000\" driverClassName=\"").append(driver).append("\" url=\"")
                .append(db.url.replace("&", "&amp;")).append('"');
        if (db.user != null) resource.append(" username=\"").append(db.user).append('"');
        if (db.password != null) resource.append(" password=\"").append(db.password.replace("&", "&amp;").replace("\"", "&quot;")).append('"');
        return "<Context>" + resource.append("/>") + "</Context>";
    }

    private static Connection connect(TestDatabase db) throws SQLException {
        return db.user == null ? DriverManager.getConnection(db.url) : DriverManager.getConnection(db.url, db.user, db.password);
    }

    private static long rows(TestDatabase db, String table, String transfer) {
        try (Connection c = connect(db); PreparedStatement ps = c.prepareStatement("SELECT COUNT(*) FROM " + table + " WHERE transfer_id = ?")) {
            ps.setString(1, transfer);
            try (ResultSet rs = ps.executeQuery()) {
                rs.next();
                return rs.getLong(1);
            }
        } catch (SQLException e) {
            throw new AssertionError(e);
        }
    }

    /** The effect marks of a key's current owner, as "KIND detail"; there must be some. */
    private static List<String> marks(TestDatabase db, String storeTable, String key) throws SQLException {
        List<String> marks = markList(db, storeTable, key);
        assertNotEquals(0, marks.size(), "no marks for " + key);
        return marks;
    }

    private static List<String> markList(TestDatabase db, String storeTable, String key) throws SQLException {
        List<String> marks = new ArrayList<>();
        try (Connection c = connect(db); PreparedStatement ps = c.prepareStatement("SELECT m.kind, m.detail FROM " + storeTable + "_effects m JOIN "
                + storeTable + " k ON k.scope = m.scope AND k.idem_key = m.idem_key AND k.owner_token = m.owner_token WHERE m.idem_key = ?")) {
            ps.setString(1, key);
            try (ResultSet rs = ps.executeQuery()) {
                while (rs.next()) marks.add(rs.getString(1) + " " + rs.getString(2));
            }
        }
        return marks;
    }

    private static void dropTables(TestDatabase db, String table, String storeTable) throws SQLException {
        try (Connection c = connect(db); Statement s = c.createStatement()) {
            for (String t : new String[] {table, storeTable + "_effects", storeTable + "_secret", storeTable + "_schema", storeTable}) {
                s.execute("DROP TABLE IF EXISTS " + t);
            }
        }
    }
}
