package dev.idempotency.demo.transfers;

import javax.servlet.annotation.WebServlet;
import javax.servlet.http.HttpServlet;
import javax.servlet.http.HttpServletRequest;
import javax.servlet.http.HttpServletResponse;
import java.io.IOException;
import java.sql.Connection;
import java.sql.SQLException;

/** POST /transfers: one row in one transaction of the container's DataSource, committed by hand, as legacy code does. */
@WebServlet("/transfers")
public class TransferServlet extends HttpServlet {
    private static final long serialVersionUID = 1L;

    @Override
    protected void doPost(HttpServletRequest request, HttpServletResponse response) throws IOException {
        String body = Transfers.text(request.getInputStream());
        String transfer = Transfers.field(body, "transfer");
        long amount = Long.parseLong(Transfers.field(body, "amount"));
        try {
            try (Connection c = Transfers.dataSource().getConnection()) {
                c.setAutoCommit(false);
                Transfers.insert(c, transfer, amount, "servlet");
                Transfers.stage(transfer, "written");
                Transfers.pause(request.getHeader("X-Pause-Before-Commit-Ms"));
                c.commit();
                c.setAutoCommit(true);
            }
        } catch (SQLException e) {
            throw new IOException("transfer " + transfer + " failed", e);
        }
        Transfers.stage(transfer, "committed");
        Transfers.pause(request.getHeader("X-Pause-After-Commit-Ms"));
        response.setStatus(201);
        response.setContentType("application/json");
        response.getWriter().write("{\"transfer\":\"" + transfer + "\",\"amount\":" + amount + ",\"at\":" + System.nanoTime() + "}");
    }
}
