package dev.idempotency.demo.transfers;

import com.stripe.Stripe;
import com.stripe.exception.StripeException;
import com.stripe.model.PaymentIntent;

import javax.servlet.annotation.WebServlet;
import javax.servlet.http.HttpServlet;
import javax.servlet.http.HttpServletRequest;
import javax.servlet.http.HttpServletResponse;
import java.io.IOException;
import java.util.HashMap;
import java.util.Map;

/**
 * POST /stripe-charges: creates a PaymentIntent through the official Stripe SDK (stripe-java, its default
 * HttpURLConnection client and two network retries), at the API base the X-Provider-Url header names, writing nothing
 * to its own database. X-Fail-After-Call: answer 500 once the charge is made.
 */
@WebServlet("/stripe-charges")
public class StripeChargeServlet extends HttpServlet {
    private static final long serialVersionUID = 1L;

    @Override
    protected void doPost(HttpServletRequest request, HttpServletResponse response) throws IOException {
        String body = Transfers.text(request.getInputStream());
        String transfer = Transfers.field(body, "transfer");
        PaymentIntent intent;
        try {
            synchronized (Stripe.class) { // the SDK's settings are global; a test points them at its stub
                Stripe.apiKey = "sk_test_stub";
                Stripe.overrideApiBase(request.getHeader("X-Provider-Url"));
                Stripe.setMaxNetworkRetries(2);
            }
            Map<String, Object> params = new HashMap<>();
            params.put("amount", 1200);
            params.put("currency", "eur");
            Map<String, Object> metadata = new HashMap<>();
            metadata.put("transfer", transfer);
            params.put("metadata", metadata);
            intent = PaymentIntent.create(params);
        } catch (StripeException e) {
            response.sendError(502, "the provider refused: " + e.getMessage());
            return;
        }
        Transfers.stage(transfer, "called-out");
        if (request.getHeader("X-Fail-After-Call") != null) {
            response.sendError(500, "the step after the provider's call failed");
            return;
        }
        response.setStatus(201);
        response.setContentType("application/json");
        response.getWriter().write("{\"transfer\":\"" + transfer + "\",\"payment_intent\":\"" + intent.getId() + "\"}");
    }
}
