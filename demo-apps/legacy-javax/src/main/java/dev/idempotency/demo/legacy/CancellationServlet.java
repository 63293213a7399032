package dev.idempotency.demo.legacy;

import java.io.IOException;
import javax.servlet.http.HttpServlet;
import javax.servlet.http.HttpServletRequest;
import javax.servlet.http.HttpServletResponse;

/** DELETE /subscriptions (an HTML form posts _method=DELETE): cancels a subscription, counted as "cancellations". */
public class CancellationServlet extends HttpServlet {
    @Override
    protected void doDelete(HttpServletRequest req, HttpServletResponse resp) throws IOException {
        long id = dev.idempotency.demo.ledger.Ledger.record("cancellations", 0, "eur");
        Json.write(resp, 200, "{\"cancelled\":" + Json.string(req.getParameter("subscription")) + ",\"cancellation\":" + id + "}");
    }
}
