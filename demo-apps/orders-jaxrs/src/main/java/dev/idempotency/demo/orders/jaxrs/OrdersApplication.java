package dev.idempotency.demo.orders.jaxrs;

import java.util.Arrays;
import java.util.HashSet;
import java.util.Set;
import javax.ws.rs.ApplicationPath;
import javax.ws.rs.core.Application;

/** A JAX-RS application as legacy services declare it; any JAX-RS runtime (Jersey, RESTEasy) picks it up. */
@ApplicationPath("/api")
public class OrdersApplication extends Application {
    @Override
    public Set<Class<?>> getClasses() {
        return new HashSet<>(Arrays.asList(OrdersResource.class, RefundsResource.class, CountersResource.class,
                VaultResource.class, VaultTokenFilter.class, JobsResource.class));
    }
}
