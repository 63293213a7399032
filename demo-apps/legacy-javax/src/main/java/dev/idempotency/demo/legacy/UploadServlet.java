package dev.idempotency.demo.legacy;

import dev.idempotency.demo.ledger.Ledger;
import java.io.IOException;
import java.io.InputStream;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import javax.servlet.ServletException;
import javax.servlet.http.HttpServlet;
import javax.servlet.http.HttpServletRequest;
import javax.servlet.http.HttpServletResponse;
import javax.servlet.http.Part;

/**
 * POST /uploads (multipart/form-data, multipart-config in web.xml): answers 201 with every part's name, submitted file
 * name, content type, size and SHA-256; counted as "uploads".
 */
public class UploadServlet extends HttpServlet {
    @Override
    protected void doPost(HttpServletRequest req, HttpServletResponse resp) throws IOException, ServletException {
        StringBuilder parts = new StringBuilder("[");
        long total = 0;
        for (Part part : req.getParts()) {
            if (parts.length() > 1) parts.append(',');
            parts.append("{\"name\":").append(Json.string(part.getName()))
                    .append(",\"filename\":").append(Json.string(part.getSubmittedFileName()))
                    .append(",\"contentType\":").append(Json.string(part.getContentType()))
                    .append(",\"size\":").append(part.getSize())
                    .append(",\"sha256\":").append(Json.string(sha256(part))).append('}');
            total += part.getSize();
        }
        long id = Ledger.record("uploads", total, "eur");
        Json.write(resp, 201, "{\"upload\":" + id + ",\"parts\":" + parts.append(']') + "}");
    }

    private static String sha256(Part part) throws IOException {
        try (InputStream in = part.getInputStream()) {
            MessageDigest digest = MessageDigest.getInstance("SHA-256");
            byte[] buffer = new byte[8192];
            for (int n; (n = in.read(buffer)) > 0; ) digest.update(buffer, 0, n);
            StringBuilder hex = new StringBuilder();
            for (byte b : digest.digest()) hex.append(String.format("%02x", b));
            return hex.toString();
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
    }
}
