package dev.idempotency.agent.core.telemetry;

import com.sun.net.httpserver.HttpServer;
import dev.idempotency.agent.core.log.AgentLog;
import dev.idempotency.agent.core.threads.AgentThreads;

import javax.management.MBeanServer;
import javax.management.ObjectName;
import java.io.IOException;
import java.io.OutputStream;
import java.lang.management.ManagementFactory;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * Publishes the figures: the MBean on the platform MBean server and, when a port is set, the Prometheus endpoint.
 * Both start on the agent's own thread at the first request the host serves ({@link dev.idempotency.agent.core.lifecycle.FirstRequest}),
 * never in the premain: touching JMX or the JDK's HTTP server (which initialises java.util.logging) before the host
 * set up its logging breaks hosts such as WildFly. Attached to a running JVM, they start at once.
 */
public final class Telemetry {
    public static final String OBJECT_NAME = "dev.idempotency:type=Agent";

    private final AgentMetrics metrics;
    private final AgentMBean.Housekeeping housekeeping;
    private final boolean jmx;
    private final String host;
    private final int port;
    private final AtomicBoolean started = new AtomicBoolean();
    /** Made with the agent (see AgentThreads), used once; null when nothing is published. */
    private final ExecutorService thread;

    public Telemetry(AgentMetrics metrics, AgentMBean.Housekeeping housekeeping, boolean jmx, String host, int port) {
        this.metrics = metrics;
        this.housekeeping = housekeeping;
        this.jmx = jmx;
        this.host = host;
        this.port = port;
        this.thread = jmx || port > 0 ? AgentThreads.single("telemetry") : null;
    }

    public static AgentMBean.Housekeeping housekeeping(java.util.function.IntSupplier purge, java.util.function.IntSupplier sweep) {
        return new AgentMBean.Housekeeping() {
            @Override public int purgeNow() { return purge.getAsInt(); }
            @Override public int sweepNow() { return sweep.getAsInt(); }
        };
    }

    /** The figures as the metrics endpoint serves them (the Prometheus text format). */
    public static String prometheusText(AgentMetrics metrics) {
        return PrometheusText.render(metrics);
    }

    public void start() {
        if (!started.compareAndSet(false, true)) return;
        if (thread == null) return;
        thread.execute(() -> {
            if (jmx) registerMBean();
            if (port > 0) serveMetrics();
        });
        thread.shutdown();
    }

    private void registerMBean() {
        try {
            MBeanServer server = platformMBeanServer();
            ObjectName name = new ObjectName(OBJECT_NAME);
            if (server.isRegistered(name)) server.unregisterMBean(name);
            server.registerMBean(new AgentMBean(metrics, housekeeping), name);
            AgentLog.debug("MBean " + OBJECT_NAME + " registered");
        } catch (Exception | LinkageError e) {
            AgentLog.warn("could not register the MBean " + OBJECT_NAME + ": " + e);
        }
    }

    /**
     * The first call creates the platform MBean server with the builder the host names in
     * javax.management.builder.initial (Open Liberty's lives on the class path), loaded through the context class
     * loader: this agent thread's own loader cannot see it, the system class loader can.
     */
    private static MBeanServer platformMBeanServer() {
        Thread current = Thread.currentThread();
        ClassLoader context = current.getContextClassLoader();
        current.setContextClassLoader(ClassLoader.getSystemClassLoader());
        try {
            return ManagementFactory.getPlatformMBeanServer();
        } finally {
            current.setContextClassLoader(context);
        }
    }

    private void serveMetrics() {
        try {
            HttpServer server = HttpServer.create(new InetSocketAddress(host, port), 16);
            server.createContext("/metrics", exchange -> {
                try {
                    byte[] body = "GET".equals(exchange.getRequestMethod()) || "HEAD".equals(exchange.getRequestMethod())
                            ? PrometheusText.render(metrics).getBytes(StandardCharsets.UTF_8) : null;
                    if (body == null) {
                        exchange.sendResponseHeaders(405, -1);
                        return;
                    }
                    exchange.getResponseHeaders().set("Content-Type", PrometheusText.CONTENT_TYPE);
                    boolean head = "HEAD".equals(exchange.getRequestMethod());
                    exchange.sendResponseHeaders(200, head ? -1 : body.length);
                    if (!head) {
                        try (OutputStream out = exchange.getResponseBody()) {
                            out.write(body);
                        }
                    }
                } finally {
                    exchange.close();
                }
            });
            // created on the agent's daemon thread, its dispatcher thread is a daemon too: it never keeps the JVM alive
            server.setExecutor(null);
            server.start();
            AgentLog.info("metrics at http://" + host + ":" + server.getAddress().getPort() + "/metrics");
        } catch (IOException | RuntimeException e) {
            AgentLog.warn("could not serve metrics on " + host + ":" + port + ": " + e);
        }
    }
}
