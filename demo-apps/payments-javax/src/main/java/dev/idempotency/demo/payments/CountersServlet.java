package dev.idempotency.demo.payments;

import dev.idempotency.demo.ledger.Ledger;
import java.io.IOException;
import javax.servlet.http.HttpServlet;
import javax.servlet.http.HttpServletRequest;
import javax.servlet.http.HttpServletResponse;

/** GET (or any method) /counters: how often each side effect happened, for tests and the demo. */
public class CountersServlet extends HttpServlet {
    @Override
    protected void service(HttpServletRequest req, HttpServletResponse resp) throws IOException {
        resp.setContentType("application/json");
        resp.getWriter().print("{\"charge\":" + Ledger.count("charge") + ",\"async-charge\":" + Ledger.count("async-charge")
                + ",\"statement\":" + Ledger.count("statement") + ",\"refund\":" + Ledger.count("refund")
                + ",\"put\":" + Ledger.count("put") + ",\"echo\":" + Ledger.count("echo") + ",\"checkout\":" + Ledger.count("checkout")
                + ",\"answer\":" + Ledger.count("answer") + ",\"error-page\":" + Ledger.count("error-page") + "}");
    }
}
