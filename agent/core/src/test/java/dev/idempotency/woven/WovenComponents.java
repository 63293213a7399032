package dev.idempotency.woven;

import javax.servlet.Filter;
import javax.servlet.FilterChain;
import javax.servlet.FilterConfig;
import javax.servlet.GenericServlet;
import javax.servlet.ServletException;
import javax.servlet.ServletRequest;
import javax.servlet.ServletResponse;
import javax.ws.rs.core.Application;
import java.io.IOException;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.util.Collections;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CopyOnWriteArrayList;

/**
 * Application code that knows nothing of the agent, woven in StartUpWeavingTest: it records what it was given. Outside
 * the agent's packages, which the agent never instruments.
 */
public final class WovenComponents {
    /** Every (request, response) pair the components' own code saw, in order. */
    public static final List<Object[]> SEEN = new CopyOnWriteArrayList<>();

    private WovenComponents() {
    }

    /** An annotation frameworks and other agents look for on the methods they call. */
    @Retention(RetentionPolicy.RUNTIME)
    public @interface Mark {
    }

    /** A servlet that fails when asked to. */
    public static class Servlet extends GenericServlet {
        @Override
        @Mark
        public void service(@Mark ServletRequest request, ServletResponse response) throws ServletException, IOException {
            SEEN.add(new Object[] {request, response});
            if ("fail".equals(request.getAttribute("outcome"))) throw new ServletException("the application failed");
        }
    }

    /** A filter that passes the request on. */
    public static class PassingFilter implements Filter {
        @Override
        public void init(FilterConfig filterConfig) {
        }

        @Override
        public void doFilter(ServletRequest request, ServletResponse response, FilterChain chain) throws IOException, ServletException {
            SEEN.add(new Object[] {request, response});
            chain.doFilter(request, response);
        }

        @Override
        public void destroy() {
        }
    }

    /** A JAX-RS application whose getClasses() is declared with a narrower type (the compiler adds a bridge). */
    public static class CovariantApplication extends Application {
        @Override
        public HashSet<Class<?>> getClasses() {
            return new HashSet<Class<?>>(Collections.<Class<?>>singleton(String.class));
        }
    }

    /** A JAX-RS application that names its resources. */
    public static class RestApplication extends Application {
        @Override
        public Set<Class<?>> getClasses() {
            return Collections.<Class<?>>singleton(String.class);
        }
    }
}
