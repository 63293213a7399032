package dev.idempotency.agent.bootstrap.bridge;

import java.io.IOException;

/** Implemented by the agent core; JAX-RS objects are typed {@code Object} so both namespaces fit. */
public interface JaxrsHandler {

    /** The application's classes with the agent's filter added (the same object when nothing is to be added). */
    Object withAgentFilter(Object application, Object classes);

    /** Registers the agent's filter into a Jersey ResourceConfig the application built itself. */
    void registerAgentFilter(Object resourceConfig);

    /** A matched request, before the resource method runs. */
    void request(JaxrsAccessor jaxrs, Object requestContext, Object resourceInfo);

    /** The resource's response, before its entity is written. */
    void response(JaxrsAccessor jaxrs, Object requestContext, Object responseContext);

    /** Writing the response entity: the handler must call {@link JaxrsAccessor#proceed} exactly once. */
    void aroundWrite(JaxrsAccessor jaxrs, Object writerContext) throws IOException;
}
