package dev.idempotency.demo.legacy;

import java.io.IOException;
import javax.servlet.http.HttpServlet;
import javax.servlet.http.HttpServletRequest;
import javax.servlet.http.HttpServletResponse;

/** POST /login (form field user): no password in this demo; sets the LEGACY_SESSION cookie. */
public class LoginServlet extends HttpServlet {
    @Override
    protected void doPost(HttpServletRequest req, HttpServletResponse resp) throws IOException {
        String user = req.getParameter("user");
        if (user == null || user.isEmpty()) {
            Json.write(resp, 400, "{\"error\":\"user is required\"}");
            return;
        }
        Sessions.open(user, req, resp);
        Json.write(resp, 200, "{\"user\":" + Json.string(user) + "}");
    }
}
