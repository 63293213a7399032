package dev.idempotency.agent.core.inprocess;

import dev.idempotency.agent.core.inprocess.AppLedger.Written;
import jakarta.servlet.AsyncContext;
import jakarta.servlet.http.HttpServlet;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import org.apache.catalina.Context;
import org.apache.catalina.connector.Connector;
import org.apache.catalina.filters.FailedRequestFilter;
import org.apache.catalina.startup.Tomcat;
import org.apache.tomcat.util.descriptor.web.FilterDef;
import org.apache.tomcat.util.descriptor.web.FilterMap;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;

/**
 * The shop on embedded Tomcat 10.1 (jakarta.servlet): payments, transfers behind Tomcat's FailedRequestFilter (which
 * parses the form's parameters before any servlet, to refuse a request whose parameters failed) and asynchronous
 * payments.
 */
final class TomcatShop implements RunningShop {
    private final Tomcat tomcat;
    private final int port;

    private TomcatShop(Tomcat tomcat, int port) {
        this.tomcat = tomcat;
        this.port = port;
    }

    static TomcatShop start() throws Exception {
        Path target = Files.createDirectories(Paths.get("target"));
        Tomcat tomcat = new Tomcat();
        tomcat.setBaseDir(Files.createTempDirectory(target, "inprocess-tomcat").toAbsolutePath().toString());
        Connector connector = new Connector();
        connector.setPort(0);
        connector.setProperty("address", "127.0.0.1");
        tomcat.setConnector(connector);
        Context context = tomcat.addContext(Shop.CONTEXT, null);
        Tomcat.addServlet(context, "payments", new PaymentServlet());
        context.addServletMappingDecoded("/payments", "payments");
        Tomcat.addServlet(context, "receipts", new PaymentServlet()); // a wildcard mapping: paths whatever they decode to
        context.addServletMappingDecoded("/receipts/*", "receipts");
        Tomcat.addServlet(context, "transfers", new TransferServlet());
        context.addServletMappingDecoded("/transfers", "transfers");
        FilterDef failedRequests = new FilterDef();
        failedRequests.setFilterName("failed-requests");
        failedRequests.setFilter(new FailedRequestFilter());
        context.addFilterDef(failedRequests);
        FilterMap onTransfers = new FilterMap();
        onTransfers.setFilterName("failed-requests");
        onTransfers.addURLPatternDecoded("/transfers");
        context.addFilterMap(onTransfers);
        Tomcat.addServlet(context, "async-payments", new AsyncPaymentServlet()).setAsyncSupported(true);
        context.addServletMappingDecoded("/async-payments", "async-payments");
        tomcat.start();
        return new TomcatShop(tomcat, connector.getLocalPort());
    }

    @Override
    public String baseUrl() {
        return "http://127.0.0.1:" + port + Shop.CONTEXT;
    }

    @Override
    public void close() throws Exception {
        tomcat.stop();
        tomcat.destroy();
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
            }, "tomcat-shop-async-payment").start();
        }
    }
}
