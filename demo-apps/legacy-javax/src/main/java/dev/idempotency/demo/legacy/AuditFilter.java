package dev.idempotency.demo.legacy;

import java.io.IOException;
import java.util.TreeSet;
import javax.servlet.Filter;
import javax.servlet.FilterChain;
import javax.servlet.FilterConfig;
import javax.servlet.ServletContext;
import javax.servlet.ServletException;
import javax.servlet.ServletRequest;
import javax.servlet.ServletResponse;
import javax.servlet.http.HttpServletRequest;

/**
 * Logs which parameters every request carries, before anything else runs: reading the parameter map parses (and so
 * consumes) a form body before any servlet sees the request.
 */
public class AuditFilter implements Filter {
    private ServletContext context;

    @Override
    public void init(FilterConfig config) {
        this.context = config.getServletContext();
    }

    @Override
    public void doFilter(ServletRequest request, ServletResponse response, FilterChain chain) throws IOException, ServletException {
        HttpServletRequest http = (HttpServletRequest) request;
        context.log("audit " + http.getMethod() + " " + http.getRequestURI() + " parameters " + new TreeSet<>(request.getParameterMap().keySet()));
        chain.doFilter(request, response);
    }

    @Override
    public void destroy() {
    }
}
