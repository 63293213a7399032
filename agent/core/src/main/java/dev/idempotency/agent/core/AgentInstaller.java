package dev.idempotency.agent.core;

import dev.idempotency.agent.bootstrap.bridge.JaxrsBridge;
import dev.idempotency.agent.bootstrap.bridge.ServletBridge;
import dev.idempotency.agent.core.config.AgentConfig;
import dev.idempotency.agent.core.config.ConfigException;
import dev.idempotency.agent.core.config.AttachArguments;
import dev.idempotency.agent.core.gate.IdempotencyGate;
import dev.idempotency.agent.core.gate.JaxrsCoverage;
import dev.idempotency.agent.core.jaxrs.IdempotentJaxrsHandler;
import dev.idempotency.agent.core.jaxrs.JaxrsInstrumentation;
import dev.idempotency.agent.core.log.AgentLog;
import dev.idempotency.agent.core.servlet.IdempotentServletHandler;
import dev.idempotency.agent.core.servlet.RequestsBeforeAttach;
import dev.idempotency.agent.core.servlet.ServletInstrumentation;
import dev.idempotency.agent.core.store.StoreLifecycle;
import dev.idempotency.agent.core.telemetry.AgentMetrics;
import dev.idempotency.agent.core.telemetry.Telemetry;
import net.bytebuddy.agent.builder.AgentBuilder;
import net.bytebuddy.description.type.TypeDescription;
import net.bytebuddy.dynamic.DynamicType;
import net.bytebuddy.utility.JavaModule;

import java.io.File;
import java.lang.instrument.Instrumentation;


/**
 * Runs inside the agent's isolated class loader, called once by the premain: reads the configuration, wires the
 * handler to the bridge and installs the instrumentation. The store is not touched here: it opens on first use.
 */
public final class AgentInstaller {
    private AgentInstaller() {
    }

    /** What the agent's state is in this JVM, for {@code attach} to read through the attach API. */
    public static final String STATE_PROPERTY = "dev.idempotency.agent.state";

    /** Returns whether the agent now runs; false when nothing was installed (a later attach may try again). */
    public static boolean install(Instrumentation instrumentation, String arguments, File agentJar, boolean attached) {
        AgentConfig config;
        try {
            config = AgentConfig.load(AttachArguments.settings(arguments));
        } catch (ConfigException e) {
            AgentLog.error("configuration rejected: " + e.getMessage() + "; the application runs UNPROTECTED");
            System.setProperty(STATE_PROPERTY, "rejected: " + e.getMessage());
            return false;
        }
        AgentLog.setLevel(config.logLevel);
        for (String unknown : config.unknownSettings()) AgentLog.warn("unknown setting " + unknown + " is ignored");
        if (!config.enabled) {
            AgentLog.info("disabled by idempotency.enabled=false");
            System.setProperty(STATE_PROPERTY, "disabled by idempotency.enabled=false");
            return false;
        }
        AgentMetrics metrics = new AgentMetrics();
        StoreLifecycle lifecycle = new StoreLifecycle(config.store, config.sweepInterval, metrics);
        IdempotencyGate gate = new IdempotencyGate(config, lifecycle, metrics);
        Telemetry telemetry = new Telemetry(metrics, Telemetry.housekeeping(lifecycle::purgeNow, lifecycle::sweepNow),
                config.jmx, config.metricsHost, config.metricsPort);
        FirstRequest firstRequest = new FirstRequest(telemetry::start, lifecycle::openInBackground);
        JaxrsCoverage jaxrsCoverage = new JaxrsCoverage();
        RequestsBeforeAttach beforeAttach = new RequestsBeforeAttach();
        ServletBridge.install(new IdempotentServletHandler(config, gate, jaxrsCoverage, beforeAttach, firstRequest));
        JaxrsBridge.install(new IdempotentJaxrsHandler(config, gate, jaxrsCoverage, firstRequest));
        AgentBuilder builder = new AgentBuilder.Default()
                .disableClassFormatChanges()
                .with(AgentBuilder.RedefinitionStrategy.RETRANSFORMATION)
                .with(AgentBuilder.TypeStrategy.Default.DECORATE)
                .with(AgentBuilder.DescriptionStrategy.Default.POOL_ONLY)
                // Types are read from class files; one that has none (another agent defines interfaces at run time and
                // adds them to servlets) is taken from the loaded class instead of failing the servlet's instrumentation.
                .with(new LoadedTypeFallbackPool())
                .with(new FailureListener(attached ? beforeAttach : null))
                .ignore(IgnoredTypes.matcher());
        if (attached) beforeAttach.attaching();
        JaxrsInstrumentation.apply(ServletInstrumentation.apply(builder)).installOn(instrumentation);
        if (attached) {
            int running = beforeAttach.snapshot();
            firstRequest.onRequest(); // the host is serving already
            AgentLog.info("attached to a running JVM: servlets and filters already loaded were retransformed; " + running
                    + (running == 1 ? " request" : " requests") + " in flight now finish untouched, every request from now on is"
                    + " protected (JAX-RS applications started before the attach are protected at their servlet)");
        }
        AgentLog.info("started " + version() + ": " + config.summary());
        System.setProperty(STATE_PROPERTY, "running " + version() + (attached ? " (attached)" : ""));
        return true;
    }

    private static String version() {
        String v = AgentInstaller.class.getPackage() == null ? null : AgentInstaller.class.getPackage().getImplementationVersion();
        return v == null ? "idempotency-agent" : "idempotency-agent " + v;
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
