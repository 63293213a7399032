package dev.idempotency.demo.orders.jaxrs;

import dev.idempotency.demo.ledger.Ledger;
import javax.ws.rs.core.Response;

/** Refunds a payment; annotated only through {@link RefundsApi}. */
public class RefundsResource implements RefundsApi {
    @Override
    public Response refund(String paymentId, String body) {
        long id = Ledger.record("refund", 100, "eur");
        return Response.ok("{\"refund\":\"re_" + id + "\",\"payment\":\"" + paymentId + "\"}").build();
    }
}
