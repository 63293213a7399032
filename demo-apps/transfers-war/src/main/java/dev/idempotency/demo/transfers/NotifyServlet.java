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

/** POST /payouts: tells a payment provider over HTTP (HttpURLConnection), writing nothing to its own database. */
@WebServlet("/payouts")
public class NotifyServlet extends HttpServlet {
    private static final long serialVersionUID = 1L;

    @Override
    protected void doPost(HttpServletRequest request, HttpServletResponse response) throws IOException {
        String body = Transfers.text(request.getInputStream());
        String transfer = Transfers.field(body, "transfer");
        HttpURLConnection call = (HttpURLConnection) new URL(request.getHeader("X-Provider-Url") + "/" + transfer).openConnection();
        call.setRequestMethod("POST");
        call.setDoOutput(true);
        try (OutputStream out = call.getOutputStream()) {
            out.write(body.getBytes(StandardCharsets.UTF_8));
        }
        int status = call.getResponseCode();
        try (InputStream in = call.getInputStream()) {
            Transfers.text(in);
        }
        Transfers.stage(transfer, "called-out");
        Transfers.pause(request.getHeader("X-Pause-After-Call-Ms"));
        response.setStatus(201);
        response.setContentType("application/json");
        response.getWriter().write("{\"transfer\":\"" + transfer + "\",\"provider\":" + status + ",\"at\":" + System.nanoTime() + "}");
    }
}
