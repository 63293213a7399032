package dev.idempotency.demo.payments;

import dev.idempotency.demo.ledger.Ledger;
import java.io.IOException;
import java.io.OutputStream;
import javax.servlet.http.HttpServlet;
import javax.servlet.http.HttpServletRequest;
import javax.servlet.http.HttpServletResponse;

/** POST /statements?size=N generates a binary statement of N bytes through getOutputStream (one side effect each). */
public class StatementServlet extends HttpServlet {
    @Override
    protected void doPost(HttpServletRequest req, HttpServletResponse resp) throws IOException {
        int size = Integer.parseInt(req.getParameter("size") == null ? "4096" : req.getParameter("size"));
        long id = Ledger.record("statement", size, "eur");
        resp.setStatus(200);
        resp.setContentType("application/octet-stream");
        resp.setHeader("X-Statement-Id", String.valueOf(id));
        OutputStream out = resp.getOutputStream();
        byte[] chunk = new byte[8192];
        for (int written = 0; written < size; ) {
            int n = Math.min(chunk.length, size - written);
            for (int i = 0; i < n; i++) chunk[i] = (byte) ((written + i) * 31 + id);
            out.write(chunk, 0, n);
            written += n;
        }
    }
}
