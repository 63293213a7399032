package dev.idempotency.agent.core.inprocess;

import dev.idempotency.agent.core.inprocess.AppLedger.Written;
import org.eclipse.jetty.server.Server;
import org.eclipse.jetty.server.ServerConnector;
import org.eclipse.jetty.servlet.FilterHolder;
import org.eclipse.jetty.servlet.ServletContextHandler;
import org.eclipse.jetty.servlet.ServletHolder;
import org.glassfish.jersey.server.ResourceConfig;
import org.glassfish.jersey.servlet.ServletContainer;
import org.springframework.web.filter.HiddenHttpMethodFilter;

import javax.servlet.AsyncContext;
import javax.servlet.DispatcherType;
import javax.servlet.http.HttpServlet;
import javax.servlet.http.HttpServletRequest;
import javax.servlet.http.HttpServletResponse;
import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.EnumSet;

/**
 * The shop on Jetty 9.4 (javax.servlet 3.1): payments, transfers behind Spring's HiddenHttpMethodFilter (which reads
 * the form's parameters before any servlet, as legacy method-override filters do), asynchronous payments, and the
 * orders resource on Jersey 2 at /api.
 */
final class JettyShop implements RunningShop {
    private final Server server;

    private JettyShop(Server server) {
        this.server = server;
    }

    static JettyShop start() throws Exception {
        Server server = new Server(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0));
        ServletContextHandler context = new ServletContextHandler(ServletContextHandler.NO_SESSIONS);
        context.setContextPath(Shop.CONTEXT);
        context.addServlet(new ServletHolder(new PaymentServlet()), "/payments");
        context.addServlet(new ServletHolder(new TransferServlet()), "/transfers");
        context.addFilter(new FilterHolder(new HiddenHttpMethodFilter()), "/transfers",
                EnumSet.of(DispatcherType.REQUEST));
        ServletHolder async = new ServletHolder(new AsyncPaymentServlet());
        async.setAsyncSupported(true);
        context.addServlet(async, "/async-payments");
        ResourceConfig orders = new ResourceConfig(OrdersResource.class)
                .property("jersey.config.server.wadl.disableWadl", true); // no JAXB here, no WADL wanted
        context.addServlet(new ServletHolder(new ServletContainer(orders)), "/api/*");
        server.setHandler(context);
        server.start();
        return new JettyShop(server);
    }

    @Override
    public String baseUrl() {
        return "http://127.0.0.1:" + ((ServerConnector) server.getConnectors()[0]).getLocalPort() + Shop.CONTEXT;
    }

    @Override
    public void close() throws Exception {
        server.stop();
    }

    static void write(HttpServletResponse response, Written answer) throws IOException {
        response.setStatus(answer.status());
        answer.headers().forEach((name, value) -> {
            if (name.equals("Content-Type")) response.setContentType(value);
            else response.setHeader(name, value);
        });
        response.setContentLength(answer.body().length);
        response.getOutputStream().write(answer.body());
    }

    static final class PaymentServlet extends HttpServlet {
        @Override
        protected void doPost(HttpServletRequest request, HttpServletResponse response) throws IOException {
            String ref = request.getParameter("ref");
            if ("true".equals(request.getParameter("fail"))) {
                Shop.failedPayment(ref);
                response.sendError(500, "card processor unavailable");
                return;
            }
            String json = new String(request.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
            write(response, Shop.payment(ref, json));
        }
    }

    static final class TransferServlet extends HttpServlet {
        @Override
        protected void doPost(HttpServletRequest request, HttpServletResponse response) throws IOException {
            write(response, Shop.transfer(request.getParameter("ref"), request.getParameter("from"),
                    request.getParameter("to"), request.getParameter("amount"), request.getParameter("note")));
        }
    }

    /** Accepts the payment on a thread of its own and completes the asynchronous cycle from there. */
    static final class AsyncPaymentServlet extends HttpServlet {
        @Override
        protected void doPost(HttpServletRequest request, HttpServletResponse response) {
            String ref = request.getParameter("ref");
            String amount = request.getParameter("amount");
            AsyncContext async = request.startAsync();
            new Thread(() -> {
                try {
                    write((HttpServletResponse) async.getResponse(), Shop.asyncPayment(ref, amount));
                } catch (IOException e) {
                    throw new IllegalStateException(e);
                } finally {
                    async.complete();
                }
            }, "jetty-shop-async-payment").start();
        }
    }
}
