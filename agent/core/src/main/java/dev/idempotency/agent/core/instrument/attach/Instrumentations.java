package dev.idempotency.agent.core.instrument.attach;

import dev.idempotency.agent.core.instrument.IgnoredTypes;
import dev.idempotency.agent.core.log.AgentLog;
import dev.idempotency.agent.core.servlet.RequestsBeforeAttach;
import net.bytebuddy.agent.builder.AgentBuilder;
import net.bytebuddy.description.type.TypeDescription;
import net.bytebuddy.dynamic.DynamicType;
import net.bytebuddy.matcher.ElementMatcher;
import net.bytebuddy.utility.JavaModule;

import java.lang.instrument.Instrumentation;

import static net.bytebuddy.matcher.ElementMatchers.isSynthetic;

/**
 * The agent's transformations as Byte Buddy applies them, for an attach to a running JVM: installed at once, with the
 * retransformation of the servlets and filters already loaded (Byte Buddy's advice is inlined, so no method is added
 * to a class that is already defined). A JVM started with the agent never loads Byte Buddy: see
 * {@link dev.idempotency.agent.core.instrument.startup.StartUpTransformer}.
 */
public final class Instrumentations {
    private Instrumentations() {
    }

    /** Installs the transformations into a running JVM and retransforms the servlets and filters it loaded already. */
    public static void attach(Instrumentation instrumentation, RequestsBeforeAttach beforeAttach) {
        builder(beforeAttach).with(AgentBuilder.RedefinitionStrategy.RETRANSFORMATION).installOn(instrumentation);
    }

    /** @param beforeAttach learns which classes were retransformed; null where nothing is to learn (tests) */
    public static AgentBuilder builder(RequestsBeforeAttach beforeAttach) {
        AgentBuilder builder = new AgentBuilder.Default()
                .disableClassFormatChanges()
                .with(AgentBuilder.TypeStrategy.Default.DECORATE)
                .with(AgentBuilder.DescriptionStrategy.Default.POOL_ONLY)
                // Types are read from class files; one that has none (another agent defines interfaces at run time and
                // adds them to servlets) is taken from the loaded class instead of failing the servlet's instrumentation.
                .with(new LoadedTypeFallbackPool())
                .with(new FailureListener(beforeAttach))
                .ignore(ignoredTypes());
        return JaxrsInstrumentation.apply(ServletInstrumentation.apply(builder));
    }

    /** By name first; synthetic types last, the only test that reads the type itself. */
    private static ElementMatcher.Junction<TypeDescription> ignoredTypes() {
        return new ElementMatcher.Junction.AbstractBase<TypeDescription>() {
            @Override
            public boolean matches(TypeDescription type) {
                return IgnoredTypes.byName(type.getName());
            }
        }.or(isSynthetic());
    }

    /** Instrumentation failures are the agent's problem, never the host's: logged, and the class loads unchanged. */
    private static final class FailureListener extends AgentBuilder.Listener.Adapter {
        private final RequestsBeforeAttach beforeAttach;

        FailureListener(RequestsBeforeAttach beforeAttach) {
            this.beforeAttach = beforeAttach;
        }

        @Override
        public void onError(String typeName, ClassLoader classLoader, JavaModule module, boolean loaded, Throwable throwable) {
            AgentLog.warn("could not instrument " + typeName + "; its requests are not protected", throwable);
        }

        @Override
        public void onTransformation(TypeDescription type, ClassLoader classLoader, JavaModule module, boolean loaded, DynamicType dynamicType) {
            if (beforeAttach != null) beforeAttach.instrumented(type.getName());
            AgentLog.debug("instrumented " + type.getName());
        }
    }
}
