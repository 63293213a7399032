package dev.idempotency.demo.orders.jaxrs;

import java.security.Principal;
import javax.ws.rs.container.ContainerRequestContext;
import javax.ws.rs.container.ContainerRequestFilter;
import javax.ws.rs.container.PreMatching;
import javax.ws.rs.core.Response;
import javax.ws.rs.core.SecurityContext;

/**
 * The application's own authentication, as a JAX-RS filter: requests under /vault need X-Vault-Token (alice's or
 * bob's), and the filter puts the token's owner into the SecurityContext. Pre-matching, so it runs before every
 * post-matching filter whatever their priorities.
 */
@PreMatching
public class VaultTokenFilter implements ContainerRequestFilter {
    /** Whose token this is; null for none or an unknown one. */
    static String owner(String token) {
        return "token-alice".equals(token) ? "alice" : "token-bob".equals(token) ? "bob" : null;
    }

    @Override
    public void filter(ContainerRequestContext request) {
        String path = request.getUriInfo().getPath(); // "vault/..." on Jersey, "/vault/..." on RESTEasy
        if (!(path.startsWith("/") ? path.substring(1) : path).startsWith("vault")) return;
        String user = owner(request.getHeaderString("X-Vault-Token"));
        if (user == null) {
            request.abortWith(Response.status(401).type("application/json").entity("{\"error\":\"vault token required\"}").build());
            return;
        }
        SecurityContext original = request.getSecurityContext();
        request.setSecurityContext(new SecurityContext() {
            @Override public Principal getUserPrincipal() { return () -> user; }
            @Override public boolean isUserInRole(String role) { return false; }
            @Override public boolean isSecure() { return original != null && original.isSecure(); }
            @Override public String getAuthenticationScheme() { return "VAULT-TOKEN"; }
        });
    }
}
