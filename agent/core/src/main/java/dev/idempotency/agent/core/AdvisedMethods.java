package dev.idempotency.agent.core;

/**
 * The methods the agent's advice goes into, by name and parameters. The Byte Buddy matchers and the class-file
 * pre-check ({@link DeferredTransformer}) both read them from here, so the pre-check can never pass over a method the
 * matchers would advise. Free of Byte Buddy: the premain loads it.
 */
public final class AdvisedMethods {
    /** {@code service(request, response)} of every servlet. */
    public static final String SERVICE = "service";
    /** {@code doFilter(request, response, chain)} of every filter. */
    public static final String DO_FILTER = "doFilter";
    /** {@code getClasses()} of every JAX-RS application. */
    public static final String GET_CLASSES = "getClasses";
    /** Advised by name (its constructors) rather than by a method. */
    public static final String JERSEY_RESOURCE_CONFIG = "org.glassfish.jersey.server.ResourceConfig";

    /** The first parameter of {@link #SERVICE} and {@link #DO_FILTER}. */
    public static final String[] SERVLET_REQUESTS = {"javax.servlet.ServletRequest", "javax.servlet.http.HttpServletRequest",
        "jakarta.servlet.ServletRequest", "jakarta.servlet.http.HttpServletRequest"};
    /** The third parameter of {@link #DO_FILTER}. */
    public static final String[] FILTER_CHAINS = {"javax.servlet.FilterChain", "jakarta.servlet.FilterChain"};

    private AdvisedMethods() {
    }

    /** What a class file must declare to need any advice (or at least as much: it may say yes where advice finds nothing). */
    static DeclaredMethods inClassFiles() {
        return new DeclaredMethods(
                DeclaredMethods.shape(SERVICE, 2, SERVLET_REQUESTS),
                DeclaredMethods.shape(DO_FILTER, 3, SERVLET_REQUESTS),
                DeclaredMethods.shape(GET_CLASSES, 0));
    }
}
