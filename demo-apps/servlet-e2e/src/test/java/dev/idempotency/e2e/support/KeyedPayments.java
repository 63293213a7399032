package dev.idempotency.e2e.support;

import dev.idempotency.e2e.servers.ServerProcess;
import dev.idempotency.e2e.scenarios.ServerScenarios;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Keyed payments as a careful client sends them while the store's database fails over: each key's amount is its number,
 * and the client retries on 503 and 409 (in flight) until it has the key's answer. The application's ledger, read from
 * its file after the server stopped, tells how often each key was charged.
 */
public final class KeyedPayments {
    private static final Pattern CHARGE_ID = Pattern.compile("\"id\":\"ch_(\\d+)\"");

    /** A client's last word on a key: the answer it keeps, how many 503s it met on the way, and when it got it. */
    public record Outcome(HttpResponse<byte[]> answer, int unavailable, long answeredAt) { }

    /** Answers of 503 seen by every client of this load. */
    public final AtomicInteger refused = new AtomicInteger();
    private final String prefix;

    public KeyedPayments(String prefix) {
        this.prefix = prefix;
    }

    public HttpRequest.Builder payment(Client client, int n) {
        return client.request("/payments").header("Idempotency-Key", prefix + n).header("Content-Type", "application/json")
                .POST(HttpRequest.BodyPublishers.ofString("{\"amount\":" + n + "}"));
    }

    /** Sends key {@code n} until it has its answer: a 201, or 409 outcome unknown. */
    public Outcome untilAnswered(Client client, int n) throws Exception {
        int unavailable = 0;
        while (true) {
            HttpResponse<byte[]> r = client.send(payment(client, n));
            if (r.statusCode() == 201 || r.statusCode() == 409 && ServerScenarios.text(r).contains("outcome-unknown")) {
                return new Outcome(r, unavailable, System.nanoTime());
            }
            if (r.statusCode() == 503) {
                unavailable++;
                refused.incrementAndGet();
            } else if (r.statusCode() != 409) {
                throw new AssertionError("key " + n + ": unexpected " + r.statusCode() + " " + ServerScenarios.text(r));
            }
            Thread.sleep(100); // a client's back-off before its retry, not a wait for anything in the test
        }
    }

    /** The charge id in a 201's body. */
    public static long chargeId(HttpResponse<byte[]> answer) {
        Matcher id = CHARGE_ID.matcher(ServerScenarios.text(answer));
        if (!id.find()) throw new AssertionError("no charge id in " + ServerScenarios.text(answer));
        return Long.parseLong(id.group(1));
    }

    /** Charge ids per amount in the ledgers of servers that have stopped (their H2 files). */
    public static Map<Long, List<Long>> ledgerCharges(ServerProcess... servers) throws Exception {
        Map<Long, List<Long>> charges = new HashMap<>();
        for (ServerProcess server : servers) {
            try (Connection c = DriverManager.getConnection("jdbc:h2:file:" + server.work.resolve("ledger"), "sa", "");
                 PreparedStatement ps = c.prepareStatement("SELECT amount, id FROM side_effects WHERE kind = 'charge'");
                 ResultSet rs = ps.executeQuery()) {
                while (rs.next()) charges.computeIfAbsent(rs.getLong(1), a -> new ArrayList<>()).add(rs.getLong(2));
            }
        }
        return charges;
    }
}
