package dev.idempotency.demo.payments;

import dev.idempotency.demo.ledger.Ledger;
import java.io.IOException;
import java.lang.reflect.Method;
import javax.servlet.ServletException;
import javax.servlet.http.HttpServlet;
import javax.servlet.http.HttpServletRequest;
import javax.servlet.http.HttpServletResponse;

/**
 * POST /checkout: a classic post/redirect/get. Records a "checkout", then redirects to its receipt (relative to this
 * path). A request asking for another redirect status (X-Redirect-Status) gets it through Servlet 6.1's
 * sendRedirect(String, int) where the container's API offers it, looked up at run time as code built for an older API
 * does; elsewhere the classic 302.
 */
public class CheckoutServlet extends HttpServlet {
    @Override
    protected void doPost(HttpServletRequest req, HttpServletResponse resp) throws IOException, ServletException {
        long id = Ledger.record("checkout", 0, "eur");
        String location = "receipts/" + id;
        String status = req.getHeader("X-Redirect-Status");
        if (status != null) {
            Method withStatus;
            try {
                withStatus = HttpServletResponse.class.getMethod("sendRedirect", String.class, int.class);
            } catch (NoSuchMethodException olderApi) {
                withStatus = null;
            }
            if (withStatus != null) {
                try {
                    withStatus.invoke(resp, location, Integer.parseInt(status));
                } catch (ReflectiveOperationException e) {
                    throw new ServletException(e);
                }
                return;
            }
        }
        resp.sendRedirect(location);
    }
}
