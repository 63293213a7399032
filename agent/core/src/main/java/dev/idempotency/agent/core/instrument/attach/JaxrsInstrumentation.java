package dev.idempotency.agent.core.instrument.attach;

import dev.idempotency.agent.core.jaxrs.JaxrsEdges;
import dev.idempotency.agent.core.instrument.AdvisedMethods;
import dev.idempotency.agent.core.instrument.LoaderSees;
import dev.idempotency.agent.core.instrument.SuperTypeNamed;
import net.bytebuddy.agent.builder.AgentBuilder;

import static net.bytebuddy.matcher.ElementMatchers.isAbstract;
import static net.bytebuddy.matcher.ElementMatchers.isConstructor;
import static net.bytebuddy.matcher.ElementMatchers.isInterface;
import static net.bytebuddy.matcher.ElementMatchers.nameStartsWith;
import static net.bytebuddy.matcher.ElementMatchers.named;
import static net.bytebuddy.matcher.ElementMatchers.not;
import static net.bytebuddy.matcher.ElementMatchers.takesArguments;

/**
 * Registers the agent's filter into every JAX-RS application: {@code getClasses()} of {@code Application} and its
 * subclasses (javax and jakarta) returns the application's classes plus the filter, and every Jersey
 * {@code ResourceConfig} the application constructs registers it. Jersey's own ResourceConfig classes are left alone
 * here: they gather the application's classes through the application's getClasses().
 */
public final class JaxrsInstrumentation {

    private JaxrsInstrumentation() {
    }

    public static AgentBuilder apply(AgentBuilder builder) {
        return builder
                .type(named(JaxrsEdges.JERSEY_RESOURCE_CONFIG))
                .transform(new AgentBuilder.Transformer.ForAdvice()
                        .include(JaxrsInstrumentation.class.getClassLoader())
                        .advice(isConstructor(), ResourceConfigAdvice.class.getName()))
                .type(SuperTypeNamed.anyOf(JaxrsEdges.JAVAX_APPLICATION, JaxrsEdges.JAKARTA_APPLICATION)
                        .and(not(isInterface())).and(not(nameStartsWith("org.glassfish.jersey."))),
                        new LoaderSees("javax/ws/rs/core/Application.class", "jakarta/ws/rs/core/Application.class")::matches)
                .transform(new AgentBuilder.Transformer.ForAdvice()
                        .include(JaxrsInstrumentation.class.getClassLoader())
                        .advice(named(AdvisedMethods.GET_CLASSES).and(takesArguments(0)).and(not(isAbstract())), ApplicationClassesAdvice.class.getName()));
    }
}
