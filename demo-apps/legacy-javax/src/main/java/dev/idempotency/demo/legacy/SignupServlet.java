package dev.idempotency.demo.legacy;

import dev.idempotency.demo.ledger.Ledger;
import java.io.IOException;
import javax.servlet.http.HttpServlet;
import javax.servlet.http.HttpServletRequest;
import javax.servlet.http.HttpServletResponse;

/** POST /signup (anonymous): creates an account and logs it in (Set-Cookie LEGACY_SESSION), counted as "signups". */
public class SignupServlet extends HttpServlet {
    @Override
    protected void doPost(HttpServletRequest req, HttpServletResponse resp) throws IOException {
        long id = Ledger.record("signups", 0, "eur");
        Sessions.open("member-" + id, req, resp);
        Json.write(resp, 201, "{\"signup\":" + id + "}");
    }
}
