package dev.idempotency.demo.orders.jaxrs;

import dev.idempotency.demo.ledger.Ledger;
import javax.ws.rs.GET;
import javax.ws.rs.Path;
import javax.ws.rs.Produces;

/** GET /api/counters: how often each side effect happened. */
@Path("/counters")
public class CountersResource {
    @GET
    @Produces("application/json")
    public String counters() {
        return "{\"payment\":" + Ledger.count("payment") + ",\"failed-payment\":" + Ledger.count("failed-payment")
                + ",\"refund\":" + Ledger.count("refund") + ",\"deposit\":" + Ledger.count("deposit")
                + ",\"job\":" + Ledger.count("job") + "}";
    }
}
