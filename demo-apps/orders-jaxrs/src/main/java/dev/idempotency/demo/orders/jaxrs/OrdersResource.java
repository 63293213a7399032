package dev.idempotency.demo.orders.jaxrs;

import dev.idempotency.demo.ledger.Ledger;
import java.net.URI;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import javax.ws.rs.Consumes;
import javax.ws.rs.HeaderParam;
import javax.ws.rs.POST;
import javax.ws.rs.Path;
import javax.ws.rs.PathParam;
import javax.ws.rs.QueryParam;
import javax.ws.rs.core.Response;

/**
 * POST /api/orders/{id}/payments pays an order: body {"amount": N}. 201 with a Location and a receipt; a header
 * X-Delay-Ms makes it slow; ?fail=true answers 500 (after recording the failed attempt, so reruns can be counted).
 */
@Path("/orders")
public class OrdersResource {
    private static final Pattern AMOUNT = Pattern.compile("\"amount\"\\s*:\\s*(\\d+)");

    @POST
    @Path("/{id}/payments")
    @Consumes("application/json")
    public Response pay(@PathParam("id") String orderId, @QueryParam("fail") boolean fail, @HeaderParam("X-Delay-Ms") Long delayMs,
                        String body) throws InterruptedException {
        if (fail) {
            Ledger.record("failed-payment", 0, "eur");
            return Response.serverError().type("application/json").entity("{\"error\":\"card processor unavailable\"}").build();
        }
        Matcher amount = AMOUNT.matcher(body);
        if (!amount.find()) {
            return Response.status(400).type("application/json").entity("{\"error\":\"amount is required\"}").build();
        }
        long id = Ledger.record("payment", Long.parseLong(amount.group(1)), "eur");
        if (delayMs != null) Thread.sleep(delayMs);
        return Response.created(URI.create("orders/" + orderId + "/payments/pay_" + id)).type("application/json;charset=UTF-8")
                .entity("{\"order\":\"" + orderId + "\",\"payment\":\"pay_" + id + "\",\"amount\":" + amount.group(1)
                        + ",\"note\":\"payé – merci €\"}").build();
    }
}
