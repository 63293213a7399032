package dev.idempotency.demo.legacy;

import dev.idempotency.demo.ledger.Ledger;
import java.io.IOException;
import javax.servlet.http.HttpServlet;
import javax.servlet.http.HttpServletRequest;
import javax.servlet.http.HttpServletResponse;

/** POST /account/orders (behind SessionAuthFilter): an order for the logged-in user, counted as "orders". */
public class OrderServlet extends HttpServlet {
    @Override
    protected void doPost(HttpServletRequest req, HttpServletResponse resp) throws IOException {
        String user = req.getRemoteUser();
        long id = Ledger.record("orders", 0, "eur");
        Json.write(resp, 201, "{\"user\":" + Json.string(user) + ",\"order\":" + id + "}");
    }
}
