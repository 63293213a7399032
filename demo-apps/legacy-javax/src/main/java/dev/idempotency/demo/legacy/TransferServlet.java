package dev.idempotency.demo.legacy;

import java.io.IOException;
import javax.servlet.http.HttpServlet;
import javax.servlet.http.HttpServletRequest;
import javax.servlet.http.HttpServletResponse;

/** POST /transfers: a form post (from, to, amount, item/qty pairs, note), counted as "transfers". */
public class TransferServlet extends HttpServlet {
    @Override
    protected void doPost(HttpServletRequest req, HttpServletResponse resp) throws IOException {
        Json.write(resp, 201, Transfers.execute("transfers", req));
    }
}
