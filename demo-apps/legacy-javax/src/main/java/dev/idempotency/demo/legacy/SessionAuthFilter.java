package dev.idempotency.demo.legacy;

import java.io.IOException;
import javax.servlet.Filter;
import javax.servlet.FilterChain;
import javax.servlet.FilterConfig;
import javax.servlet.ServletException;
import javax.servlet.ServletRequest;
import javax.servlet.ServletResponse;
import javax.servlet.http.HttpServletRequest;
import javax.servlet.http.HttpServletResponse;

/** /account/*: 401 without a valid LEGACY_SESSION cookie; otherwise the request goes on as its user. */
public class SessionAuthFilter implements Filter {
    @Override
    public void init(FilterConfig config) {
    }

    @Override
    public void doFilter(ServletRequest request, ServletResponse response, FilterChain chain) throws IOException, ServletException {
        HttpServletRequest req = (HttpServletRequest) request;
        String user = Sessions.user(req);
        if (user == null) {
            Json.write((HttpServletResponse) response, 401, "{\"error\":\"log in first\"}");
            return;
        }
        chain.doFilter(new AuthenticatedRequest(req, user), response);
    }

    @Override
    public void destroy() {
    }
}
