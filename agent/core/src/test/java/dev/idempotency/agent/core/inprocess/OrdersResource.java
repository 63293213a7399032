package dev.idempotency.agent.core.inprocess;

import dev.idempotency.agent.core.inprocess.AppLedger.Written;

import javax.ws.rs.Consumes;
import javax.ws.rs.POST;
import javax.ws.rs.Path;
import javax.ws.rs.QueryParam;
import javax.ws.rs.core.Response;
import java.util.Map;

/** POST /api/orders on Jersey 2 (javax.ws.rs): creates an order from its JSON. */
@Path("/orders")
public class OrdersResource {
    @POST
    @Consumes("application/json")
    public Response create(@QueryParam("ref") String ref, String json) {
        Written answer = Shop.order(ref, json);
        Response.ResponseBuilder response = Response.status(answer.status()).entity(answer.body());
        for (Map.Entry<String, String> header : answer.headers().entrySet()) {
            response.header(header.getKey(), header.getValue());
        }
        return response.build();
    }
}
