package dev.idempotency.agent.core.instrument.attach;

import dev.idempotency.agent.core.instrument.AdvisedMethods;
import dev.idempotency.agent.core.instrument.LoaderSees;
import dev.idempotency.agent.core.instrument.SuperTypeNamed;
import net.bytebuddy.agent.builder.AgentBuilder;
import net.bytebuddy.description.method.MethodDescription;
import net.bytebuddy.description.type.TypeDescription;
import net.bytebuddy.matcher.ElementMatcher;


import static net.bytebuddy.matcher.ElementMatchers.isAbstract;
import static net.bytebuddy.matcher.ElementMatchers.isInterface;
import static net.bytebuddy.matcher.ElementMatchers.named;
import static net.bytebuddy.matcher.ElementMatchers.namedOneOf;
import static net.bytebuddy.matcher.ElementMatchers.not;
import static net.bytebuddy.matcher.ElementMatchers.takesArgument;
import static net.bytebuddy.matcher.ElementMatchers.takesArguments;

/**
 * Which code gets advice: {@code service(request, response)} of every {@code Servlet} (javax and jakarta, not only
 * {@code HttpServlet}: JSF's FacesServlet implements {@code Servlet}) and {@code doFilter(request, response, chain)}
 * of every {@code Filter}, in class loaders that see a servlet API at all. The handler makes sure only the outermost
 * entry takes a request and only one decision point decides it.
 */
public final class ServletInstrumentation {
    private ServletInstrumentation() {
    }

    public static AgentBuilder apply(AgentBuilder builder) {
        ElementMatcher.Junction<TypeDescription> servlets =
                SuperTypeNamed.anyOf("javax.servlet.Servlet", "jakarta.servlet.Servlet").and(not(isInterface()));
        ElementMatcher.Junction<MethodDescription> service = named(AdvisedMethods.SERVICE).and(takesArguments(2)).and(not(isAbstract()))
                .and(takesArgument(0, namedOneOf(AdvisedMethods.SERVLET_REQUESTS)));
        ElementMatcher.Junction<TypeDescription> filters =
                SuperTypeNamed.anyOf("javax.servlet.Filter", "jakarta.servlet.Filter").and(not(isInterface()));
        ElementMatcher.Junction<MethodDescription> doFilter = named(AdvisedMethods.DO_FILTER).and(takesArguments(3)).and(not(isAbstract()))
                .and(takesArgument(0, namedOneOf(AdvisedMethods.SERVLET_REQUESTS)))
                .and(takesArgument(2, namedOneOf(AdvisedMethods.FILTER_CHAINS)));
        LoaderSees seesServletApi = new LoaderSees("javax/servlet/http/HttpServlet.class", "jakarta/servlet/http/HttpServlet.class");
        return builder
                .type(servlets, seesServletApi::matches)
                .transform(new AgentBuilder.Transformer.ForAdvice()
                        .include(ServletInstrumentation.class.getClassLoader())
                        .advice(service, ServletAdvice.class.getName()))
                .type(filters, seesServletApi::matches)
                .transform(new AgentBuilder.Transformer.ForAdvice()
                        .include(ServletInstrumentation.class.getClassLoader())
                        .advice(doFilter, ServletAdvice.class.getName()));
    }
}
