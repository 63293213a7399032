package dev.idempotency.demo.legacy;

import java.security.Principal;
import javax.servlet.http.HttpServletRequest;
import javax.servlet.http.HttpServletRequestWrapper;

/** How a home-grown authentication filter tells the rest of the application who is calling: a wrapper with a principal. */
final class AuthenticatedRequest extends HttpServletRequestWrapper {
    private final String user;

    AuthenticatedRequest(HttpServletRequest request, String user) {
        super(request);
        this.user = user;
    }

    @Override
    public String getRemoteUser() {
        return user;
    }

    @Override
    public Principal getUserPrincipal() {
        return () -> user;
    }

    @Override
    public String getAuthType() {
        return "LEGACY";
    }
}
