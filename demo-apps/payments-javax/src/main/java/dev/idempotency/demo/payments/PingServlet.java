package dev.idempotency.demo.payments;

import java.io.IOException;
import javax.servlet.http.HttpServlet;
import javax.servlet.http.HttpServletRequest;
import javax.servlet.http.HttpServletResponse;

/** Any method on /ping answers "pong" without touching the ledger: the cheapest request, for overhead benchmarks. */
public class PingServlet extends HttpServlet {
    @Override
    protected void service(HttpServletRequest req, HttpServletResponse resp) throws IOException {
        resp.setContentType("text/plain");
        resp.getOutputStream().write(PONG);
    }

    private static final byte[] PONG = {'p', 'o', 'n', 'g'};
}
