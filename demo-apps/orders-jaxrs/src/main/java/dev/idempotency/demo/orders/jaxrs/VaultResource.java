package dev.idempotency.demo.orders.jaxrs;

import dev.idempotency.demo.ledger.Ledger;
import javax.ws.rs.HeaderParam;
import javax.ws.rs.POST;
import javax.ws.rs.Path;
import javax.ws.rs.core.Response;

/**
 * POST /api/vault/deposits, for the token owner only (see {@link VaultTokenFilter}, which refuses everyone else);
 * counted as "deposit".
 */
@Path("/vault")
public class VaultResource {
    @POST
    @Path("/deposits")
    public Response deposit(@HeaderParam("X-Vault-Token") String token) {
        long id = Ledger.record("deposit", 0, "eur");
        return Response.status(201).type("application/json")
                .entity("{\"owner\":\"" + VaultTokenFilter.owner(token) + "\",\"deposit\":" + id + "}").build();
    }
}
