package dev.idempotency.demo.payments;

import dev.idempotency.demo.ledger.Ledger;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import javax.servlet.http.HttpServlet;
import javax.servlet.http.HttpServletRequest;
import javax.servlet.http.HttpServletResponse;

/** POST /echo stores a document and answers with it: the body read whole, then written back (one side effect each). */
public class EchoServlet extends HttpServlet {
    @Override
    protected void doPost(HttpServletRequest req, HttpServletResponse resp) throws IOException {
        ByteArrayOutputStream document = new ByteArrayOutputStream(Math.max(32, req.getContentLength()));
        InputStream in = req.getInputStream();
        byte[] chunk = new byte[8192];
        for (int n; (n = in.read(chunk)) != -1; ) document.write(chunk, 0, n);
        long id = Ledger.record("echo", document.size(), "eur");
        resp.setStatus(200);
        resp.setContentType(req.getContentType() == null ? "application/octet-stream" : req.getContentType());
        resp.setHeader("X-Echo-Id", String.valueOf(id));
        document.writeTo(resp.getOutputStream());
    }
}
