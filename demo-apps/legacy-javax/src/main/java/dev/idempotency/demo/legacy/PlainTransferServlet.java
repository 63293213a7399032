package dev.idempotency.demo.legacy;

import java.io.IOException;
import javax.servlet.GenericServlet;
import javax.servlet.ServletRequest;
import javax.servlet.ServletResponse;
import javax.servlet.http.HttpServletResponse;

/** POST /plain-transfers: the same transfer, from a GenericServlet (no HttpServlet anywhere), counted as "plain". */
public class PlainTransferServlet extends GenericServlet {
    @Override
    public void service(ServletRequest req, ServletResponse res) throws IOException {
        Json.write((HttpServletResponse) res, 201, Transfers.execute("plain", req));
    }
}
