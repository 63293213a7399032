package dev.idempotency.demo.legacy;

import dev.idempotency.demo.ledger.Ledger;
import java.io.IOException;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import javax.servlet.http.HttpServlet;
import javax.servlet.http.HttpServletRequest;
import javax.servlet.http.HttpServletResponse;

/**
 * POST /limited (form field account): a rate limiter that turns the first attempt per account away with 429 and
 * Retry-After: 1, and accepts the next ones with 201. Every run counts "limited-attempts"; an accepted one also
 * "limited-success".
 */
public class LimitedServlet extends HttpServlet {
    private static final Set<String> SEEN = ConcurrentHashMap.newKeySet();

    @Override
    protected void doPost(HttpServletRequest req, HttpServletResponse resp) throws IOException {
        String account = req.getParameter("account");
        long attempt = Ledger.record("limited-attempts", 0, "eur");
        if (SEEN.add(String.valueOf(account))) {
            resp.setHeader("Retry-After", "1");
            Json.write(resp, 429, "{\"error\":\"slow down\",\"attempt\":" + attempt + "}");
            return;
        }
        long id = Ledger.record("limited-success", 0, "eur");
        Json.write(resp, 201, "{\"account\":" + Json.string(account) + ",\"accepted\":" + id + "}");
    }
}
