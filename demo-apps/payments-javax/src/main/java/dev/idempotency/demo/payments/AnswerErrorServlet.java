package dev.idempotency.demo.payments;

import dev.idempotency.demo.ledger.Ledger;
import java.io.IOException;
import javax.servlet.RequestDispatcher;
import javax.servlet.http.HttpServlet;
import javax.servlet.http.HttpServletRequest;
import javax.servlet.http.HttpServletResponse;

/** The application's own error page (mapped in web.xml by status and by exception): any method, a JSON document. */
public class AnswerErrorServlet extends HttpServlet {
    @Override
    protected void service(HttpServletRequest req, HttpServletResponse resp) throws IOException {
        Ledger.record("error-page", 0, "eur"); // how often it rendered: a replay must not render it again
        Object status = req.getAttribute(RequestDispatcher.ERROR_STATUS_CODE);
        Object exception = req.getAttribute(RequestDispatcher.ERROR_EXCEPTION_TYPE);
        resp.setContentType("application/json");
        resp.setHeader("X-Error-Page", "answers");
        resp.getWriter().print("{\"error\":" + status + ",\"exception\":\""
                + (exception == null ? "" : ((Class<?>) exception).getSimpleName()) + "\"}");
    }
}
