package dev.idempotency.agent.core;

import dev.idempotency.agent.core.jaxrs.JaxrsInstrumentation;
import dev.idempotency.agent.core.log.AgentLog;
import dev.idempotency.agent.core.servlet.RequestsBeforeAttach;
import dev.idempotency.agent.core.servlet.ServletInstrumentation;
import net.bytebuddy.agent.builder.AgentBuilder;
import net.bytebuddy.description.type.TypeDescription;
import net.bytebuddy.dynamic.DynamicType;
import net.bytebuddy.utility.JavaModule;

import java.lang.instrument.ClassFileTransformer;
import java.lang.instrument.Instrumentation;

/**
 * The agent's transformations, as Byte Buddy applies them: at start-up behind a {@link DeferredTransformer}, on attach
 * installed at once with the retransformation of what is already loaded. The only class of the start-up path that
 * touches Byte Buddy, so that loading Byte Buddy can happen off the host's main thread.
 */
final class Instrumentations {
    private Instrumentations() {
    }

    /** The transformer for a JVM that is starting (nothing is loaded yet that would need retransforming), warmed up. */
    static ClassFileTransformer forStartUp() {
        ClassFileTransformer transformer = builder(null).makeRaw();
        InstrumentationWarmUp.run(transformer);
        return transformer;
    }

    /** Installs the transformations into a running JVM and retransforms the servlets and filters it loaded already. */
    static void attach(Instrumentation instrumentation, RequestsBeforeAttach beforeAttach) {
        builder(beforeAttach).with(AgentBuilder.RedefinitionStrategy.RETRANSFORMATION).installOn(instrumentation);
    }

    /** @param beforeAttach on attach, learns which classes were retransformed; null at start-up */
    static AgentBuilder builder(RequestsBeforeAttach beforeAttach) {
        AgentBuilder builder = new AgentBuilder.Default()
                .disableClassFormatChanges()
                .with(AgentBuilder.TypeStrategy.Default.DECORATE)
                .with(AgentBuilder.DescriptionStrategy.Default.POOL_ONLY)
                // Types are read from class files; one that has none (another agent defines interfaces at run time and
                // adds them to servlets) is taken from the loaded class instead of failing the servlet's instrumentation.
                .with(new LoadedTypeFallbackPool())
                .with(new FailureListener(beforeAttach))
                .ignore(IgnoredTypes.matcher());
        return JaxrsInstrumentation.apply(ServletInstrumentation.apply(builder));
    }

    /** Instrumentation failures are the agent's problem, never the host's: logged, and the class loads unchanged. */
    private static final class FailureListener extends AgentBuilder.Listener.Adapter {
        private final RequestsBeforeAttach beforeAttach;

        FailureListener(RequestsBeforeAttach beforeAttach) {
            this.beforeAttach = beforeAttach;
        }

        @Override
        public void onError(String typeName, ClassLoader classLoader, JavaModule module, boolean loaded, Throwable throwable) {
            if (typeName.startsWith(InstrumentationWarmUp.PACKAGE)) AgentLog.debug("the start-up warm-up failed: " + throwable);
            else AgentLog.warn("could not instrument " + typeName + "; its requests are not protected", throwable);
        }

        @Override
        public void onTransformation(TypeDescription type, ClassLoader classLoader, JavaModule module, boolean loaded, DynamicType dynamicType) {
            if (type.getName().startsWith(InstrumentationWarmUp.PACKAGE)) return;
            if (beforeAttach != null) beforeAttach.instrumented(type.getName());
            AgentLog.debug("instrumented " + type.getName());
        }
    }
}
