package dev.idempotency.demo.orders.standalone;

import com.sun.net.httpserver.HttpServer;
import dev.idempotency.demo.orders.jaxrs.CountersResource;
import dev.idempotency.demo.orders.jaxrs.JobsResource;
import dev.idempotency.demo.orders.jaxrs.OrdersApplication;
import dev.idempotency.demo.orders.jaxrs.OrdersResource;
import dev.idempotency.demo.orders.jaxrs.RefundsResource;
import dev.idempotency.demo.orders.jaxrs.VaultResource;
import dev.idempotency.demo.orders.jaxrs.VaultTokenFilter;
import java.net.URI;
import org.glassfish.jersey.jdkhttp.JdkHttpServerFactory;
import org.glassfish.jersey.server.ResourceConfig;

/**
 * The orders service on Jersey 3 and the JDK's own HTTP server, no servlet container anywhere. Arguments: the port,
 * and optionally "resource-config" to configure Jersey the other common way, with a ResourceConfig listing the
 * resources, instead of through the Application (whose @ApplicationPath Jersey applies).
 */
public final class OrdersServer {
    private OrdersServer() {
    }

    public static void main(String[] args) {
        int port = Integer.parseInt(args.length > 0 ? args[0] : "8080");
        boolean resourceConfig = args.length > 1 && args[1].equals("resource-config");
        ResourceConfig config = resourceConfig
                ? new ResourceConfig(OrdersResource.class, RefundsResource.class, CountersResource.class, VaultResource.class,
                        VaultTokenFilter.class, JobsResource.class)
                : ResourceConfig.forApplication(new OrdersApplication());
        URI base = URI.create("http://127.0.0.1:" + port + (resourceConfig ? "/api/" : "/"));
        HttpServer server = JdkHttpServerFactory.createHttpServer(base, config);
        Runtime.getRuntime().addShutdownHook(new Thread(() -> server.stop(0)));
        System.out.println("orders service listening on http://127.0.0.1:" + port + "/api/");
    }
}
