package dev.idempotency.demo.orders.resteasy;

import com.sun.net.httpserver.HttpServer;
import dev.idempotency.demo.orders.jaxrs.OrdersApplication;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.util.concurrent.Executors;
import org.jboss.resteasy.core.ResteasyDeploymentImpl;
import org.jboss.resteasy.plugins.server.sun.http.SunHttpJaxrsServer;
import org.jboss.resteasy.spi.ResteasyDeployment;

/**
 * The orders service on RESTEasy 6 and its container for the JDK's own HTTP server, no servlet container anywhere, the
 * JAX-RS Application handed to RESTEasy's deployment as such an application's main method does. Argument: the port.
 */
public final class OrdersServer {
    private OrdersServer() {
    }

    public static void main(String[] args) throws IOException {
        int port = Integer.parseInt(args.length > 0 ? args[0] : "8080");
        ResteasyDeployment deployment = new ResteasyDeploymentImpl();
        deployment.setApplication(new OrdersApplication());
        // the JDK server alone serves one request at a time: a service gives it threads
        HttpServer http = HttpServer.create(new InetSocketAddress("127.0.0.1", port), 64);
        http.setExecutor(Executors.newCachedThreadPool());
        SunHttpJaxrsServer server = new SunHttpJaxrsServer();
        server.setHttpServer(http);
        server.setRootResourcePath("/api");
        server.setDeployment(deployment);
        server.start();
        Runtime.getRuntime().addShutdownHook(new Thread(server::stop));
        System.out.println("orders service listening on http://127.0.0.1:" + port + "/api/");
    }
}
