package dev.idempotency.e2e.support;

import dev.idempotency.e2e.servers.ServerProcess;
import javax.management.MBeanServerConnection;
import javax.management.ObjectName;
import javax.management.remote.JMXConnector;
import javax.management.remote.JMXConnectorFactory;
import javax.management.remote.JMXServiceURL;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;

/** What the agent in a server says about itself: its MBean over a remote JMX connection, and its metrics endpoint. */
public final class AgentFigures implements AutoCloseable {
    public static final String OBJECT_NAME = "dev.idempotency:type=Agent";
    private final HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();
    private final int metricsPort;
    private final JMXConnector jmx;
    private final MBeanServerConnection mbeans;

    public AgentFigures(int jmxPort, int metricsPort) throws IOException {
        this.metricsPort = metricsPort;
        this.jmx = JMXConnectorFactory.connect(new JMXServiceURL("service:jmx:rmi:///jndi/rmi://127.0.0.1:" + jmxPort + "/jmxrmi"));
        this.mbeans = jmx.getMBeanServerConnection();
    }

    /** The JVM options that open the server's platform MBean server to a local JMX client, without authentication. */
    public static ServerProcess exposeJmx(ServerProcess server, int port) {
        return server.set("com.sun.management.jmxremote.port", String.valueOf(port))
                .set("com.sun.management.jmxremote.rmi.port", String.valueOf(port))
                .set("com.sun.management.jmxremote.host", "127.0.0.1")
                .set("java.rmi.server.hostname", "127.0.0.1")
                .set("com.sun.management.jmxremote.authenticate", "false")
                .set("com.sun.management.jmxremote.ssl", "false");
    }

    /** The server with its figures published: the MBean on {@code jmxPort}, the Prometheus endpoint on {@code metricsPort}. */
    public static ServerProcess observable(ServerProcess server, int jmxPort, int metricsPort) {
        return exposeJmx(server, jmxPort).set("idempotency.metrics.port", String.valueOf(metricsPort));
    }

    /** A port nothing listens on now. */
    public static int freePort() throws IOException {
        try (java.net.ServerSocket s = new java.net.ServerSocket(0, 50, java.net.InetAddress.getLoopbackAddress())) {
            return s.getLocalPort();
        }
    }

    public boolean registered() throws Exception {
        return mbeans.isRegistered(new ObjectName(OBJECT_NAME));
    }

    public Object attribute(String name) throws Exception {
        return mbeans.getAttribute(new ObjectName(OBJECT_NAME), name);
    }

    public long counter(String name) throws Exception {
        return ((Number) attribute(name)).longValue();
    }

    public Object invoke(String operation) throws Exception {
        return mbeans.invoke(new ObjectName(OBJECT_NAME), operation, new Object[0], new String[0]);
    }

    /** Every sample of the Prometheus endpoint, by name with labels. Fails on a line that is not the text format. */
    public Map<String, Double> scrape() throws IOException, InterruptedException {
        HttpResponse<String> r = http.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + metricsPort + "/metrics")).build(),
                HttpResponse.BodyHandlers.ofString());
        if (r.statusCode() != 200) throw new AssertionError("metrics answered " + r.statusCode());
        if (!r.headers().firstValue("Content-Type").orElse("").startsWith("text/plain; version=0.0.4")) {
            throw new AssertionError("metrics content type " + r.headers().firstValue("Content-Type"));
        }
        Map<String, Double> samples = new HashMap<>();
        for (String line : r.body().split("\n")) {
            if (line.isEmpty() || line.startsWith("# HELP ") || line.startsWith("# TYPE ")) continue;
            // labels: name="value", values escaped per the format (\\, \" and \n), several separated by commas
            String label = "[a-z_]+=\"(?:[^\"\\\\]|\\\\.)*\"";
            if (!line.matches("idempotency_[a-z_]+(\\{" + label + "(," + label + ")*\\})? -?[0-9.E+-]+")) {
                throw new AssertionError("not a sample line: " + line);
            }
            int space = line.lastIndexOf(' ');
            samples.put(line.substring(0, space), Double.parseDouble(line.substring(space + 1)));
        }
        return samples;
    }

    @Override
    public void close() throws IOException {
        jmx.close();
    }
}
