package dev.idempotency.demo.payments;

import dev.idempotency.demo.ledger.Ledger;
import java.io.IOException;
import javax.servlet.ServletException;
import javax.servlet.http.HttpServlet;
import javax.servlet.http.HttpServletRequest;
import javax.servlet.http.HttpServletResponse;

/** POST /refunds records a refund, then forwards to /payments (GET) to render the balance: a nested dispatch. */
public class RefundForwardServlet extends HttpServlet {
    @Override
    protected void doPost(HttpServletRequest req, HttpServletResponse resp) throws IOException, ServletException {
        Ledger.record("refund", 100, "eur");
        req.getRequestDispatcher("/counters").forward(req, resp);
    }
}
