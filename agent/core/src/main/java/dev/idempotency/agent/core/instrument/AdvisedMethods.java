package dev.idempotency.agent.core.instrument;

import java.util.ArrayList;
import java.util.List;

/**
 * The methods the agent's advice goes into, by name and parameters. The start-up transformer's class-file pre-check
 * and weaver ({@link dev.idempotency.agent.core.instrument.startup.StartUpTransformer}) and the Byte Buddy matchers of an attach all read them from here, so the two
 * paths agree on what they advise. Free of Byte Buddy: the premain loads it.
 */
public final class AdvisedMethods {
    /** {@code service(request, response)} of every servlet. */
    public static final String SERVICE = "service";
    /** {@code doFilter(request, response, chain)} of every filter. */
    public static final String DO_FILTER = "doFilter";
    /** {@code getClasses()} of every JAX-RS application. */
    public static final String GET_CLASSES = "getClasses";

    /** The first parameter of {@link #SERVICE} and {@link #DO_FILTER}. */
    public static final String[] SERVLET_REQUESTS = {"javax.servlet.ServletRequest", "javax.servlet.http.HttpServletRequest",
        "jakarta.servlet.ServletRequest", "jakarta.servlet.http.HttpServletRequest"};
    /** The third parameter of {@link #DO_FILTER}. */
    public static final String[] FILTER_CHAINS = {"javax.servlet.FilterChain", "jakarta.servlet.FilterChain"};

    private AdvisedMethods() {
    }

    /** {@code void service(request, response)}, as the start-up weaver reads a method descriptor. */
    public static boolean isServiceDescriptor(String descriptor) {
        String[] parameters = voidMethodReferenceParameters(descriptor);
        return parameters != null && parameters.length == 2 && oneOf(parameters[0], SERVLET_REQUESTS);
    }

    /** {@code void doFilter(request, response, chain)}, as the start-up weaver reads a method descriptor. */
    public static boolean isDoFilterDescriptor(String descriptor) {
        String[] parameters = voidMethodReferenceParameters(descriptor);
        return parameters != null && parameters.length == 3 && oneOf(parameters[0], SERVLET_REQUESTS)
                && oneOf(parameters[2], FILTER_CHAINS);
    }

    /** The parameters' class names of a method that returns void and takes only objects; null for any other. */
    private static String[] voidMethodReferenceParameters(String descriptor) {
        if (!descriptor.endsWith(")V") || descriptor.charAt(0) != '(') return null;
        List<String> names = new ArrayList<>(3);
        int i = 1;
        while (descriptor.charAt(i) != ')') {
            if (descriptor.charAt(i) != 'L') return null;
            int end = descriptor.indexOf(';', i);
            names.add(descriptor.substring(i + 1, end).replace('/', '.'));
            i = end + 1;
        }
        return names.toArray(new String[0]);
    }

    private static boolean oneOf(String name, String[] names) {
        for (String candidate : names) if (candidate.equals(name)) return true;
        return false;
    }

    /** What a class file must declare to need any advice (or at least as much: it may say yes where advice finds nothing). */
    public static DeclaredMethods inClassFiles() {
        return new DeclaredMethods(
                DeclaredMethods.shape(SERVICE, 2, SERVLET_REQUESTS),
                DeclaredMethods.shape(DO_FILTER, 3, SERVLET_REQUESTS),
                DeclaredMethods.shape(GET_CLASSES, 0));
    }
}
