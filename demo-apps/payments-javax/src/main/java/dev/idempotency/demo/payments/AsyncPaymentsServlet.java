package dev.idempotency.demo.payments;

import dev.idempotency.demo.ledger.Ledger;
import java.io.IOException;
import javax.servlet.AsyncContext;
import javax.servlet.http.HttpServlet;
import javax.servlet.http.HttpServletRequest;
import javax.servlet.http.HttpServletResponse;

/** POST /async-payments charges on another thread and completes the asynchronous cycle from there. */
public class AsyncPaymentsServlet extends HttpServlet {
    @Override
    protected void doPost(HttpServletRequest req, HttpServletResponse resp) {
        String amount = req.getParameter("amount") == null ? "500" : req.getParameter("amount");
        AsyncContext async = req.startAsync();
        async.start(() -> {
            try {
                long id = Ledger.record("async-charge", Long.parseLong(amount), "eur");
                HttpServletResponse response = (HttpServletResponse) async.getResponse();
                response.setStatus(202);
                response.setContentType("application/json");
                response.getOutputStream().write(("{\"id\":\"ach_" + id + "\",\"state\":\"accepted\"}").getBytes("UTF-8"));
            } catch (IOException e) {
                throw new IllegalStateException(e);
            } finally {
                async.complete();
            }
        });
    }
}
