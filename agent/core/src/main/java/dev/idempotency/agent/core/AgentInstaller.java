package dev.idempotency.agent.core;

import dev.idempotency.agent.bootstrap.bridge.JaxrsBridge;
import dev.idempotency.agent.bootstrap.bridge.ServletBridge;
import dev.idempotency.agent.core.config.AgentConfig;
import dev.idempotency.agent.core.config.ConfigException;
import dev.idempotency.agent.core.config.ConfigSource;
import dev.idempotency.agent.core.gate.IdempotencyGate;
import dev.idempotency.agent.core.gate.JaxrsCoverage;
import dev.idempotency.agent.core.jaxrs.IdempotentJaxrsHandler;
import dev.idempotency.agent.core.jaxrs.JaxrsInstrumentation;
import dev.idempotency.agent.core.log.AgentLog;
import dev.idempotency.agent.core.servlet.IdempotentServletHandler;
import dev.idempotency.agent.core.servlet.ServletInstrumentation;
import dev.idempotency.agent.core.store.StoreLifecycle;
import net.bytebuddy.agent.builder.AgentBuilder;
import net.bytebuddy.description.type.TypeDescription;
import net.bytebuddy.dynamic.DynamicType;
import net.bytebuddy.utility.JavaModule;

import java.io.File;
import java.lang.instrument.Instrumentation;

import static net.bytebuddy.matcher.ElementMatchers.isSynthetic;
import static net.bytebuddy.matcher.ElementMatchers.nameStartsWith;

/**
 * Runs inside the agent's isolated class loader, called once by the premain: reads the configuration, wires the
 * handler to the bridge and installs the instrumentation. The store is not touched here: it opens on first use.
 */
public final class AgentInstaller {
    private AgentInstaller() {
    }

    public static void install(Instrumentation instrumentation, String arguments, File agentJar) {
        AgentConfig config;
        try {
            config = AgentConfig.load(ConfigSource.fromEnvironment());
        } catch (ConfigException e) {
            AgentLog.error("configuration rejected: " + e.getMessage() + "; the application runs UNPROTECTED");
            return;
        }
        AgentLog.setLevel(config.logLevel);
        for (String unknown : config.unknownSettings()) AgentLog.warn("unknown setting " + unknown + " is ignored");
        if (!config.enabled) {
            AgentLog.info("disabled by idempotency.enabled=false");
            return;
        }
        StoreLifecycle lifecycle = new StoreLifecycle(config.store, config.sweepInterval);
        IdempotencyGate gate = new IdempotencyGate(config, lifecycle);
        JaxrsCoverage jaxrsCoverage = new JaxrsCoverage();
        ServletBridge.install(new IdempotentServletHandler(config, gate, jaxrsCoverage));
        JaxrsBridge.install(new IdempotentJaxrsHandler(config, gate, jaxrsCoverage));
        AgentBuilder builder = new AgentBuilder.Default()
                .disableClassFormatChanges()
                .with(AgentBuilder.RedefinitionStrategy.RETRANSFORMATION)
                .with(AgentBuilder.TypeStrategy.Default.DECORATE)
                .with(AgentBuilder.DescriptionStrategy.Default.POOL_ONLY)
                .with(new FailureListener())
                .ignore(nameStartsWith("net.bytebuddy.").or(nameStartsWith("java."))
                        .or(nameStartsWith("sun.")).or(nameStartsWith("jdk.")).or(nameStartsWith("com.sun."))
                        .or(nameStartsWith("dev.idempotency.agent.")).or(isSynthetic()));
        JaxrsInstrumentation.apply(ServletInstrumentation.apply(builder)).installOn(instrumentation);
        AgentLog.info("started " + version() + ": " + config.summary());
    }

    private static String version() {
        String v = AgentInstaller.class.getPackage() == null ? null : AgentInstaller.class.getPackage().getImplementationVersion();
        return v == null ? "idempotency-agent" : "idempotency-agent " + v;
    }

    /** Instrumentation failures are the agent's problem, never the host's: logged, and the class loads unchanged. */
    private static final class FailureListener extends AgentBuilder.Listener.Adapter {
        @Override
        public void onError(String typeName, ClassLoader classLoader, JavaModule module, boolean loaded, Throwable throwable) {
            AgentLog.warn("could not instrument " + typeName + "; its requests are not protected", throwable);
        }

        @Override
        public void onTransformation(TypeDescription type, ClassLoader classLoader, JavaModule module, boolean loaded, DynamicType dynamicType) {
            AgentLog.debug("instrumented " + type.getName());
        }
    }
}
