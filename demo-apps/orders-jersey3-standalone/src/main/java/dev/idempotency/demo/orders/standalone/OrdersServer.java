package dev.idempotency.demo.orders.standalone;

import com.sun.net.httpserver.HttpServer;
import dev.idempotency.demo.orders.jaxrs.OrdersApplication;
import java.net.URI;
import org.glassfish.jersey.jdkhttp.JdkHttpServerFactory;
import org.glassfish.jersey.server.ResourceConfig;

/** The orders service on Jersey 3 and the JDK's own HTTP server, no servlet container anywhere (Jersey applies @ApplicationPath). */
public final class OrdersServer {
    private OrdersServer() {
    }

    public static void main(String[] args) {
        int port = Integer.parseInt(args.length > 0 ? args[0] : "8080");
        HttpServer server = JdkHttpServerFactory.createHttpServer(URI.create("http://127.0.0.1:" + port + "/"),
                ResourceConfig.forApplication(new OrdersApplication()));
        Runtime.getRuntime().addShutdownHook(new Thread(() -> server.stop(0)));
        System.out.println("orders service listening on http://127.0.0.1:" + port + "/api/");
    }
}
