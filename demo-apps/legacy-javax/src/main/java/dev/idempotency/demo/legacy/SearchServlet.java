package dev.idempotency.demo.legacy;

import dev.idempotency.demo.ledger.Ledger;
import java.io.IOException;
import javax.servlet.http.HttpServlet;
import javax.servlet.http.HttpServletRequest;
import javax.servlet.http.HttpServletResponse;

/** POST /searches?tag=..&tag=..: a saved search over tags in the order given, counted as "searches". */
public class SearchServlet extends HttpServlet {
    @Override
    protected void doPost(HttpServletRequest req, HttpServletResponse resp) throws IOException {
        long id = Ledger.record("searches", 0, "eur");
        Json.write(resp, 201, "{\"search\":" + id + ",\"tags\":" + Json.strings(req.getParameterValues("tag")) + "}");
    }
}
