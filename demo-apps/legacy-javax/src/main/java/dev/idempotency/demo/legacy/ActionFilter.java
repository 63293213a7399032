package dev.idempotency.demo.legacy;

import dev.idempotency.demo.ledger.Ledger;
import java.io.IOException;
import javax.servlet.Filter;
import javax.servlet.FilterChain;
import javax.servlet.FilterConfig;
import javax.servlet.ServletException;
import javax.servlet.ServletRequest;
import javax.servlet.ServletResponse;
import javax.servlet.http.HttpServletRequest;
import javax.servlet.http.HttpServletResponse;

/**
 * An action framework in a filter, the way Struts 2's StrutsPrepareAndExecuteFilter works: it answers the actions
 * under /actions/* itself and never calls the rest of the chain. POST /actions/pay (form field amount) is counted as
 * "actions".
 */
public class ActionFilter implements Filter {
    @Override
    public void init(FilterConfig config) {
    }

    @Override
    public void doFilter(ServletRequest request, ServletResponse response, FilterChain chain) throws IOException, ServletException {
        HttpServletRequest req = (HttpServletRequest) request;
        HttpServletResponse resp = (HttpServletResponse) response;
        String action = req.getRequestURI().substring(req.getContextPath().length());
        if ("/actions/pay".equals(action) && "POST".equals(req.getMethod())) {
            String amount = req.getParameter("amount");
            long id = Ledger.record("actions", 0, "eur");
            Json.write(resp, 201, "{\"action\":\"pay\",\"payment\":" + id + ",\"amount\":" + Json.string(amount) + "}");
        } else {
            Json.write(resp, 404, "{\"error\":\"no action " + action.replace('"', '\'') + "\"}");
        }
    }

    @Override
    public void destroy() {
    }
}
