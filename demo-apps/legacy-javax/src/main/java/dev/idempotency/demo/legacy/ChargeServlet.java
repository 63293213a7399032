package dev.idempotency.demo.legacy;

import dev.idempotency.demo.ledger.Ledger;
import java.io.IOException;
import javax.servlet.http.HttpServlet;
import javax.servlet.http.HttpServletRequest;
import javax.servlet.http.HttpServletResponse;

/** POST /api/charges (behind ApiKeyFilter): a charge for the calling API client, counted as "charges". */
public class ChargeServlet extends HttpServlet {
    @Override
    protected void doPost(HttpServletRequest req, HttpServletResponse resp) throws IOException {
        String client = req.getRemoteUser();
        long id = Ledger.record("charges", 0, "eur");
        Json.write(resp, 201, "{\"client\":" + Json.string(client) + ",\"charge\":" + id + "}");
    }
}
