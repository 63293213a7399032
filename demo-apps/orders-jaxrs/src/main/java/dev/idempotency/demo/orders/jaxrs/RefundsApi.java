package dev.idempotency.demo.orders.jaxrs;

import javax.ws.rs.POST;
import javax.ws.rs.Path;
import javax.ws.rs.PathParam;
import javax.ws.rs.Produces;
import javax.ws.rs.core.Response;

/** The contract of the refunds resource: its JAX-RS annotations live on this interface, not on the class. */
@Path("/refunds")
public interface RefundsApi {
    @POST
    @Path("/{id}")
    @Produces("application/json")
    Response refund(@PathParam("id") String paymentId, String body);
}
