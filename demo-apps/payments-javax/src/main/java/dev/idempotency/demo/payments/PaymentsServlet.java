package dev.idempotency.demo.payments;

import dev.idempotency.demo.ledger.Ledger;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.PrintWriter;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import javax.servlet.http.HttpServlet;
import javax.servlet.http.HttpServletRequest;
import javax.servlet.http.HttpServletResponse;

/**
 * POST /payments charges a card: JSON {"amount": 1000, "currency": "eur"} or a form post amount=1000&currency=eur.
 * It answers 201 with a Location and a receipt written through getWriter (UTF-8). A header X-Delay-Ms: N makes it slow,
 * ?fail=true makes it fail with 500 after charging nothing, a missing amount is a 400 (sendError).
 * GET /payments and PUT /payments are ordinary, unprotected operations.
 */
public class PaymentsServlet extends HttpServlet {
    private static final Pattern AMOUNT = Pattern.compile("\"amount\"\\s*:\\s*(\\d+)");
    private static final Pattern CURRENCY = Pattern.compile("\"currency\"\\s*:\\s*\"([a-z]{3})\"");

    @Override
    protected void doPost(HttpServletRequest req, HttpServletResponse resp) throws IOException {
        if ("true".equals(req.getParameter("fail"))) {
            resp.sendError(500, "card processor unavailable");
            return;
        }
        String amount;
        String currency;
        String contentType = req.getContentType() == null ? "" : req.getContentType();
        if (contentType.startsWith("application/x-www-form-urlencoded")) {
            amount = req.getParameter("amount");
            currency = req.getParameter("currency");
        } else {
            StringBuilder body = new StringBuilder();
            BufferedReader reader = req.getReader();
            for (String line; (line = reader.readLine()) != null; ) body.append(line);
            Matcher a = AMOUNT.matcher(body);
            Matcher c = CURRENCY.matcher(body);
            amount = a.find() ? a.group(1) : null;
            currency = c.find() ? c.group(1) : "eur";
        }
        if (amount == null) {
            resp.sendError(400, "amount is required");
            return;
        }
        long id = Ledger.record("charge", Long.parseLong(amount), currency);
        pause(req);
        resp.setStatus(201);
        resp.setHeader("Location", req.getContextPath() + "/payments/ch_" + id);
        resp.setContentType("application/json");
        resp.setCharacterEncoding("UTF-8");
        PrintWriter out = resp.getWriter();
        out.print("{\"id\":\"ch_" + id + "\",\"amount\":" + amount + ",\"currency\":\"" + currency
                + "\",\"status\":\"succeeded\",\"note\":\"merci – reçu n° " + id + " €\"}");
    }

    @Override
    protected void doGet(HttpServletRequest req, HttpServletResponse resp) throws IOException {
        resp.setContentType("application/json");
        resp.getWriter().print("{\"charges\":" + Ledger.count("charge") + "}");
    }

    @Override
    protected void doPut(HttpServletRequest req, HttpServletResponse resp) throws IOException {
        long id = Ledger.record("put", 0, "eur");
        resp.setContentType("text/plain");
        resp.getWriter().print("put " + id);
    }

    static void pause(HttpServletRequest req) {
        String delay = req.getHeader("X-Delay-Ms");
        if (delay == null) return;
        try {
            Thread.sleep(Long.parseLong(delay));
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
