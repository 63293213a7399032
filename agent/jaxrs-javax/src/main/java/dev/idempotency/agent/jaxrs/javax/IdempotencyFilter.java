package dev.idempotency.agent.jaxrs.javax;

import dev.idempotency.agent.bootstrap.bridge.JaxrsBridge;
import dev.idempotency.agent.bootstrap.bridge.JaxrsHandler;

import java.io.IOException;
import javax.ws.rs.container.ContainerRequestContext;
import javax.ws.rs.container.ContainerRequestFilter;
import javax.ws.rs.container.ContainerResponseContext;
import javax.ws.rs.container.ContainerResponseFilter;
import javax.ws.rs.container.ResourceInfo;
import javax.ws.rs.core.Context;
import javax.ws.rs.ext.WriterInterceptor;
import javax.ws.rs.ext.WriterInterceptorContext;

/**
 * The agent's provider inside every JAX-RS application: a post-matching request filter (it runs after authentication
 * filters, at the default user priority), a response filter and a writer interceptor, all handing over to the core.
 */
public final class IdempotencyFilter implements ContainerRequestFilter, ContainerResponseFilter, WriterInterceptor {
    private static final JaxrsApiAccessor JAXRS = new JaxrsApiAccessor();

    @Context
    private ResourceInfo resourceInfo;

    @Override
    public void filter(ContainerRequestContext request) {
        JaxrsHandler handler = JaxrsBridge.handler();
        if (handler != null) handler.request(JAXRS, request, resourceInfo);
    }

    @Override
    public void filter(ContainerRequestContext request, ContainerResponseContext response) {
        JaxrsHandler handler = JaxrsBridge.handler();
        if (handler != null) handler.response(JAXRS, request, response);
    }

    @Override
    public void aroundWriteTo(WriterInterceptorContext context) throws IOException {
        JaxrsHandler handler = JaxrsBridge.handler();
        if (handler == null) context.proceed();
        else handler.aroundWrite(JAXRS, context);
    }
}
