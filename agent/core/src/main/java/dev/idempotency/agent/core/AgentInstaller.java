package dev.idempotency.agent.core;

import dev.idempotency.agent.core.instrument.attach.Instrumentations;
import dev.idempotency.agent.core.instrument.startup.StartUpTransformer;
import dev.idempotency.agent.core.lifecycle.FirstRequest;
import dev.idempotency.agent.bootstrap.bridge.JaxrsBridge;
import dev.idempotency.agent.bootstrap.bridge.ServletBridge;
import dev.idempotency.agent.core.config.AgentConfig;
import dev.idempotency.agent.core.config.ConfigException;
import dev.idempotency.agent.core.config.AttachArguments;
import dev.idempotency.agent.core.instrument.effects.EffectTransformer;
import dev.idempotency.agent.core.effects.DerivedKeys;
import dev.idempotency.agent.core.effects.EffectWatch;
import dev.idempotency.agent.core.gate.IdempotencyGate;
import dev.idempotency.agent.core.gate.JaxrsCoverage;
import dev.idempotency.agent.core.jaxrs.IdempotentJaxrsHandler;
import dev.idempotency.agent.core.log.AgentLog;
import dev.idempotency.agent.core.servlet.IdempotentServletHandler;
import dev.idempotency.agent.core.servlet.RequestsBeforeAttach;
import dev.idempotency.agent.core.lifecycle.StoreLifecycle;
import dev.idempotency.agent.core.telemetry.AgentMetrics;
import dev.idempotency.agent.core.telemetry.EndpointInventory;
import dev.idempotency.agent.core.telemetry.RequiredAudit;
import dev.idempotency.agent.core.telemetry.Telemetry;
import dev.idempotency.store.ExpiredLeasePolicy;

import java.io.File;
import java.lang.instrument.Instrumentation;


/**
 * Runs inside the agent's isolated class loader, called once by the premain: reads the configuration, wires the
 * handler to the bridge and registers the instrumentation ({@link StartUpTransformer}, or Byte Buddy's on attach). The
 * store is not touched here: it opens on first use.
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
        EndpointInventory endpoints = new EndpointInventory(config.required, config.endpointsMaxPerApplication,
                config.endpointsMax);
        metrics.endpointsFrom(endpoints);
        RequiredAudit.watch(endpoints, config.required.isEmpty());
        StoreLifecycle lifecycle = new StoreLifecycle(config.store, config.sweepInterval, metrics);
        IdempotencyGate gate = new IdempotencyGate(config, lifecycle, metrics);
        Telemetry telemetry = new Telemetry(metrics, Telemetry.housekeeping(lifecycle::purgeNow, lifecycle::sweepNow),
                config.jmx, config.metricsHost, config.metricsPort);
        FirstRequest firstRequest = new FirstRequest(telemetry::start, lifecycle::openInBackground);
        JaxrsCoverage jaxrsCoverage = new JaxrsCoverage();
        RequestsBeforeAttach beforeAttach = new RequestsBeforeAttach();
        ServletBridge.install(new IdempotentServletHandler(config, gate, jaxrsCoverage, beforeAttach, firstRequest,
                endpoints));
        JaxrsBridge.install(new IdempotentJaxrsHandler(config, gate, jaxrsCoverage, firstRequest, endpoints));
        DerivedKeys.configure(config.outboundHosts, config.outboundReplaceKeys, config.outboundMethods, lifecycle::installationSecret);
        boolean transaction = config.store.expiredLeasePolicy() == ExpiredLeasePolicy.TRANSACTION;
        if (transaction || DerivedKeys.configured()) {
            // transaction: the application's commits decide what a crash means, its JDBC drivers and HTTP clients get
            // hooks; derived keys alone: its HTTP clients only
            EffectWatch.install();
            EffectTransformer.register(instrumentation, transaction);
        }
        String running = "running " + version();
        if (attached) {
            beforeAttach.attaching();
            Instrumentations.attach(instrumentation, beforeAttach);
            int inFlight = beforeAttach.snapshot();
            firstRequest.onRequest(); // the host is serving already
            AgentLog.info("attached to a running JVM: servlets and filters already loaded were retransformed; " + inFlight
                    + (inFlight == 1 ? " request" : " requests") + " in flight now finish untouched, every request from now on is"
                    + " protected (JAX-RS applications started before the attach are protected at their servlet)");
            AgentLog.info("started " + version() + ": " + config.summary());
            System.setProperty(STATE_PROPERTY, running + " (attached)");
        } else {
            StartUpTransformer.register(instrumentation);
            System.setProperty(STATE_PROPERTY, running);
            AgentLog.info("started " + version() + ": " + config.summary());
        }
        return true;
    }

    private static String version() {
        String v = AgentInstaller.class.getPackage() == null ? null : AgentInstaller.class.getPackage().getImplementationVersion();
        return v == null ? "idempotency-agent" : "idempotency-agent " + v;
    }
}
