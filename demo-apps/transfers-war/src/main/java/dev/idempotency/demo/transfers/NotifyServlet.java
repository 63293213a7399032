package dev.idempotency.demo.transfers;

import javax.servlet.annotation.WebServlet;
import javax.servlet.http.HttpServlet;
import javax.servlet.http.HttpServletRequest;
import javax.servlet.http.HttpServletResponse;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.HttpURLConnection;
import java.net.URL;
import java.nio.charset.StandardCharsets;

/**
 * POST /payouts: tells a payment provider over HTTP (HttpURLConnection; with X-Client: jdk the JDK's HttpClient, apache4
 * Apache HttpClient 4, apache5 Apache HttpClient 5, okhttp OkHttp 4), writing nothing to its own database. What a test may ask of it, by headers: X-Provider-Calls (how many calls, default 1),
 * X-Own-Key (an Idempotency-Key of its own on each call, as an application written for the provider would send),
 * X-Fail-After-Call (answer that status, or 500, once the calls are made, as an application whose later step failed).
 */
@WebServlet("/payouts")
public class NotifyServlet extends HttpServlet {
    private static final long serialVersionUID = 1L;

    @Override
    protected void doPost(HttpServletRequest request, HttpServletResponse response) throws IOException {
        String body = Transfers.text(request.getInputStream());
        String transfer = Transfers.field(body, "transfer");
        String provider = request.getHeader("X-Provider-Url") + "/" + transfer;
        String ownKey = request.getHeader("X-Own-Key");
        int calls = request.getHeader("X-Provider-Calls") == null ? 1 : Integer.parseInt(request.getHeader("X-Provider-Calls"));
        int status = 0;
        for (int i = 0; i < calls; i++) {
            status = post(request.getHeader("X-Client"), provider, body, ownKey);
        }
        Transfers.stage(transfer, "called-out");
        Transfers.pause(request.getHeader("X-Pause-After-Call-Ms"));
        String fail = request.getHeader("X-Fail-After-Call");
        if (fail != null) {
            response.sendError(fail.matches("[45]\\d\\d") ? Integer.parseInt(fail) : 500, "the step after the provider's call failed");
            return;
        }
        response.setStatus(201);
        response.setContentType("application/json");
        response.getWriter().write("{\"transfer\":\"" + transfer + "\",\"provider\":" + status + ",\"at\":" + System.nanoTime() + "}");
    }

    private static int post(String client, String url, String body, String ownKey) throws IOException {
        if ("jdk".equals(client)) return postWithJdkClient(url, body, ownKey);
        if ("apache4".equals(client)) return OtherClients.postWithApache4(url, body, ownKey);
        if ("apache5".equals(client)) return OtherClients.postWithApache5(url, body, ownKey);
        if ("okhttp".equals(client)) return OtherClients.postWithOkHttp(url, body, ownKey);
        return postWithUrlConnection(url, body, ownKey);
    }

    private static int postWithUrlConnection(String url, String body, String ownKey) throws IOException {
        HttpURLConnection call = (HttpURLConnection) new URL(url).openConnection();
        call.setRequestMethod("POST");
        if (ownKey != null) call.setRequestProperty("Idempotency-Key", ownKey);
        call.setDoOutput(true);
        try (OutputStream out = call.getOutputStream()) {
            out.write(body.getBytes(StandardCharsets.UTF_8));
        }
        int status = call.getResponseCode();
        try (InputStream in = call.getInputStream()) {
            Transfers.text(in);
        }
        return status;
    }

    /** The JDK's HttpClient (Java 11+), reached by reflection: this application compiles for Java 8. */
    private static int postWithJdkClient(String url, String body, String ownKey) throws IOException {
        try {
            Class<?> clientType = Class.forName("java.net.http.HttpClient");
            Object client = clientType.getMethod("newHttpClient").invoke(null);
            Class<?> requestType = Class.forName("java.net.http.HttpRequest");
            Class<?> publishers = Class.forName("java.net.http.HttpRequest$BodyPublishers");
            Class<?> publisherType = Class.forName("java.net.http.HttpRequest$BodyPublisher");
            Object builder = requestType.getMethod("newBuilder", java.net.URI.class).invoke(null, java.net.URI.create(url));
            Object publisher = publishers.getMethod("ofString", String.class).invoke(null, body);
            builder = Class.forName("java.net.http.HttpRequest$Builder").getMethod("POST", publisherType).invoke(builder, publisher);
            if (ownKey != null) {
                builder = Class.forName("java.net.http.HttpRequest$Builder").getMethod("header", String.class, String.class)
                        .invoke(builder, "Idempotency-Key", ownKey);
            }
            Object built = Class.forName("java.net.http.HttpRequest$Builder").getMethod("build").invoke(builder);
            Class<?> handlerType = Class.forName("java.net.http.HttpResponse$BodyHandler");
            Object handler = Class.forName("java.net.http.HttpResponse$BodyHandlers").getMethod("ofString").invoke(null);
            Object response = clientType.getMethod("send", requestType, handlerType).invoke(client, built, handler);
            return (Integer) Class.forName("java.net.http.HttpResponse").getMethod("statusCode").invoke(response);
        } catch (java.lang.reflect.InvocationTargetException e) {
            throw e.getCause() instanceof IOException ? (IOException) e.getCause() : new IOException(e.getCause());
        } catch (ReflectiveOperationException e) {
            throw new IOException("no java.net.http.HttpClient here", e);
        }
    }
}
