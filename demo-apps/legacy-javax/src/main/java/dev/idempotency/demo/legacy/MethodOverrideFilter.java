package dev.idempotency.demo.legacy;

import java.io.IOException;
import java.util.Locale;
import javax.servlet.Filter;
import javax.servlet.FilterChain;
import javax.servlet.FilterConfig;
import javax.servlet.ServletException;
import javax.servlet.ServletRequest;
import javax.servlet.ServletResponse;
import javax.servlet.http.HttpServletRequest;
import javax.servlet.http.HttpServletRequestWrapper;

/**
 * A form POST with _method=DELETE (or PUT, PATCH) reaches the servlet as that method, as Spring's
 * HiddenHttpMethodFilter does for HTML forms.
 */
public class MethodOverrideFilter implements Filter {
    @Override public void init(FilterConfig config) { }

    @Override
    public void doFilter(ServletRequest request, ServletResponse response, FilterChain chain) throws IOException, ServletException {
        HttpServletRequest http = (HttpServletRequest) request;
        String override = "POST".equals(http.getMethod()) ? http.getParameter("_method") : null;
        if (override == null || override.isEmpty()) {
            chain.doFilter(request, response);
            return;
        }
        String method = override.toUpperCase(Locale.ROOT);
        chain.doFilter(new HttpServletRequestWrapper(http) {
            @Override public String getMethod() { return method; }
        }, response);
    }

    @Override public void destroy() { }
}
