package dev.idempotency.demo.legacy;

import java.io.IOException;
import java.util.HashMap;
import java.util.Map;
import javax.servlet.Filter;
import javax.servlet.FilterChain;
import javax.servlet.FilterConfig;
import javax.servlet.ServletException;
import javax.servlet.ServletRequest;
import javax.servlet.ServletResponse;
import javax.servlet.http.HttpServletRequest;
import javax.servlet.http.HttpServletResponse;

/** /api/*: 401 unless the header X-API-Key is a known client's key; otherwise the request goes on as that client. */
public class ApiKeyFilter implements Filter {
    private static final Map<String, String> CLIENTS = new HashMap<>();

    static {
        CLIENTS.put("key-alice", "alice");
        CLIENTS.put("key-bob", "bob");
    }

    @Override
    public void init(FilterConfig config) {
    }

    @Override
    public void doFilter(ServletRequest request, ServletResponse response, FilterChain chain) throws IOException, ServletException {
        HttpServletRequest req = (HttpServletRequest) request;
        String apiKey = req.getHeader("X-API-Key");
        String client = apiKey == null ? null : CLIENTS.get(apiKey);
        if (client == null) {
            Json.write((HttpServletResponse) response, 401, "{\"error\":\"unknown API key\"}");
            return;
        }
        chain.doFilter(new AuthenticatedRequest(req, client), response);
    }

    @Override
    public void destroy() {
    }
}
