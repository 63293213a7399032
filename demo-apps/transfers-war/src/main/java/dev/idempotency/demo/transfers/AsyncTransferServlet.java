package dev.idempotency.demo.transfers;

import javax.servlet.AsyncContext;
import javax.servlet.annotation.WebServlet;
import javax.servlet.http.HttpServlet;
import javax.servlet.http.HttpServletRequest;
import javax.servlet.http.HttpServletResponse;
import java.io.IOException;
import java.sql.Connection;

/** POST /async-transfers: the same transfer, committed on a container thread of an asynchronous cycle. */
@WebServlet(urlPatterns = "/async-transfers", asyncSupported = true)
public class AsyncTransferServlet extends HttpServlet {
    private static final long serialVersionUID = 1L;

    @Override
    protected void doPost(HttpServletRequest request, HttpServletResponse response) throws IOException {
        String body = Transfers.text(request.getInputStream());
        String transfer = Transfers.field(body, "transfer");
        long amount = Long.parseLong(Transfers.field(body, "amount"));
        String pauseAfter = request.getHeader("X-Pause-After-Commit-Ms");
        AsyncContext async = request.startAsync();
        async.setTimeout(120_000);
        async.start(() -> {
            try {
                try (Connection c = Transfers.dataSource().getConnection()) {
                    c.setAutoCommit(false);
                    Transfers.insert(c, transfer, amount, "async");
                    c.commit();
                    c.setAutoCommit(true);
                }
                Transfers.stage(transfer, "committed");
                Transfers.pause(pauseAfter);
                HttpServletResponse out = (HttpServletResponse) async.getResponse();
                out.setStatus(201);
                out.setContentType("application/json");
                out.getWriter().write("{\"transfer\":\"" + transfer + "\",\"amount\":" + amount + ",\"at\":" + System.nanoTime() + "}");
            } catch (Exception e) {
                ((HttpServletResponse) async.getResponse()).setStatus(500);
            } finally {
                async.complete();
            }
        });
    }
}
