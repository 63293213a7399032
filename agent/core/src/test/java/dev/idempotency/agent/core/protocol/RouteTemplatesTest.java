package dev.idempotency.agent.core.protocol;

import org.junit.jupiter.api.Test;

import javax.ws.rs.GET;
import javax.ws.rs.POST;
import javax.ws.rs.PUT;
import javax.ws.rs.Path;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

class RouteTemplatesTest {
    @Path("/orders/")
    public static class Orders {
        @POST
        @Path("{id}/payments/")
        public void pay() { }

        @GET
        public void list() { }

        public void helper() { }
    }

    @Path("refunds")
    public interface RefundsApi {
        @PUT
        @Path("/{id}")
        void refund(String id);
    }

    public static class Refunds implements RefundsApi {
        @Override
        public void refund(String id) { }
    }

    private final RouteTemplates routes = new RouteTemplates();

    @Test
    void theRouteIsTheHttpMethodAndTheTemplateOfClassAndMethod() throws Exception {
        assertEquals("POST /orders/{id}/payments", routes.of(Orders.class, Orders.class.getMethod("pay")));
        assertEquals("GET /orders", routes.of(Orders.class, Orders.class.getMethod("list")));
    }

    @Test
    void annotationsOnTheInterfaceCount() throws Exception {
        assertEquals("PUT /refunds/{id}", routes.of(Refunds.class, Refunds.class.getMethod("refund", String.class)));
    }

    @Test
    void aMethodWithoutJaxrsAnnotationsHasNoRoute() throws Exception {
        assertNull(routes.of(Orders.class, Orders.class.getMethod("helper")));
        assertNull(routes.of(null, null));
    }

    @Test
    void requiredEndpointsMixPathPatternsAndRoutes() {
        RequiredEndpoints required = RequiredEndpoints.parse("/shop/refunds/**, POST  /orders/{id}/payments/");
        assertTrue(required.paths().matches("/shop/refunds/7"));
        assertTrue(required.requiresRoute("POST /orders/{id}/payments"));
        assertTrue(!required.requiresRoute("PUT /orders/{id}/payments") && !required.requiresRoute(null));
        assertNull(RequiredEndpoints.parse("post /orders"));
        assertTrue(RequiredEndpoints.parse("").isEmpty());
    }
}
