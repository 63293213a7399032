package dev.idempotency.demo.legacy;

import dev.idempotency.demo.ledger.Ledger;
import java.io.IOException;
import javax.servlet.http.HttpServlet;
import javax.servlet.http.HttpServletRequest;
import javax.servlet.http.HttpServletResponse;

/** GET /counters: how often each side effect happened, for tests. */
public class CountersServlet extends HttpServlet {
    static final String[] KINDS = {"transfers", "plain", "actions", "uploads", "slow", "limited-attempts", "limited-success",
            "orders", "charges", "signups", "searches", "cancellations"};

    @Override
    protected void doGet(HttpServletRequest req, HttpServletResponse resp) throws IOException {
        StringBuilder json = new StringBuilder("{");
        for (String kind : KINDS) {
            if (json.length() > 1) json.append(',');
            json.append('"').append(kind).append("\":").append(Ledger.count(kind));
        }
        Json.write(resp, 200, json.append('}').toString());
    }
}
