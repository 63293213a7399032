package dev.idempotency.agent.jaxrs.javax;

import dev.idempotency.agent.bootstrap.bridge.JaxrsAccessor;

import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.lang.reflect.Method;
import java.security.Principal;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import javax.ws.rs.container.ContainerRequestContext;
import javax.ws.rs.container.ContainerResponseContext;
import javax.ws.rs.container.ResourceInfo;
import javax.ws.rs.container.Suspended;
import javax.ws.rs.core.Cookie;
import javax.ws.rs.core.MultivaluedMap;
import javax.ws.rs.core.Response;
import javax.ws.rs.ext.InterceptorContext;
import javax.ws.rs.ext.WriterInterceptorContext;

/** JAX-RS behind the namespace-free {@link JaxrsAccessor}; the build relocates a copy to {@code jakarta.ws.rs}. */
final class JaxrsApiAccessor implements JaxrsAccessor {

    @Override public String method(Object request) { return ((ContainerRequestContext) request).getMethod(); }

    @Override public String header(Object request, String name) { return ((ContainerRequestContext) request).getHeaderString(name); }

    @Override
    public List<String> headers(Object request, String name) {
        List<String> values = ((ContainerRequestContext) request).getHeaders().get(name);
        return values == null ? Collections.<String>emptyList() : values;
    }

    @Override public String path(Object request) { return ((ContainerRequestContext) request).getUriInfo().getRequestUri().getRawPath(); }

    @Override
    public String basePath(Object request) {
        return ((ContainerRequestContext) request).getUriInfo().getBaseUri().getRawPath();
    }

    @Override public String query(Object request) { return ((ContainerRequestContext) request).getUriInfo().getRequestUri().getRawQuery(); }

    @Override public String contentType(Object request) { return ((ContainerRequestContext) request).getHeaderString("Content-Type"); }

    @Override
    public List<String[]> cookies(Object request) {
        List<String[]> cookies = new ArrayList<>();
        for (Map.Entry<String, Cookie> e : ((ContainerRequestContext) request).getCookies().entrySet()) {
            cookies.add(new String[] {e.getKey(), e.getValue().getValue()});
        }
        return cookies;
    }

    @Override
    public String principalName(Object request) {
        ContainerRequestContext r = (ContainerRequestContext) request;
        Principal principal = r.getSecurityContext() == null ? null : r.getSecurityContext().getUserPrincipal();
        return principal == null ? null : principal.getName();
    }

    @Override public InputStream entity(Object request) { return ((ContainerRequestContext) request).getEntityStream(); }

    @Override
    public void replaceEntity(Object request, byte[] body) {
        ((ContainerRequestContext) request).setEntityStream(new ByteArrayInputStream(body));
    }

    @Override
    public void abort(Object request, int status, List<String[]> headers, byte[] body) {
        // no entity for no bytes: a runtime gives an entity a media type of its own (RESTEasy: octet-stream)
        Response.ResponseBuilder response = Response.status(status).entity(body.length > 0 ? body : null);
        for (String[] h : headers) {
            if (h[0].equalsIgnoreCase("Content-Type")) response.type(h[1]);
            else response.header(h[0], h[1]);
        }
        ((ContainerRequestContext) request).abortWith(response.build());
    }

    /**
     * Only a property this request holds itself. RESTEasy's container for the JDK HttpServer falls back to the
     * exchange's attributes, which the JDK keeps per context rather than per exchange: a value another request set
     * shows through there (the agent's state of another request), but never among this request's property names.
     */
    @Override
    public Object property(Object context, String name) {
        boolean request = context instanceof ContainerRequestContext;
        Object value = request ? ((ContainerRequestContext) context).getProperty(name) : ((InterceptorContext) context).getProperty(name);
        if (value == null) return null;
        java.util.Collection<String> own = request ? ((ContainerRequestContext) context).getPropertyNames()
                : ((InterceptorContext) context).getPropertyNames();
        return own.contains(name) ? value : null;
    }

    @Override
    public void setProperty(Object context, String name, Object value) {
        if (context instanceof ContainerRequestContext) ((ContainerRequestContext) context).setProperty(name, value);
        else ((InterceptorContext) context).setProperty(name, value);
    }

    @Override public Class<?> resourceClass(Object resourceInfo) { return resourceInfo == null ? null : ((ResourceInfo) resourceInfo).getResourceClass(); }

    @Override public Method resourceMethod(Object resourceInfo) { return resourceInfo == null ? null : ((ResourceInfo) resourceInfo).getResourceMethod(); }

    @Override
    public boolean isSuspended(Object resourceInfo) {
        Method method = resourceMethod(resourceInfo);
        if (method == null) return false;
        for (java.lang.annotation.Annotation[] annotations : method.getParameterAnnotations()) {
            for (java.lang.annotation.Annotation a : annotations) if (a instanceof Suspended) return true;
        }
        return false;
    }

    @Override public int status(Object response) { return ((ContainerResponseContext) response).getStatus(); }

    @Override public boolean hasEntity(Object response) { return ((ContainerResponseContext) response).hasEntity(); }

    @Override
    public List<String[]> responseHeaders(Object response) {
        return pairs(((ContainerResponseContext) response).getStringHeaders());
    }

    @Override
    public List<String[]> writerHeaders(Object writer) {
        List<String[]> headers = new ArrayList<>();
        WriterInterceptorContext w = (WriterInterceptorContext) writer;
        boolean typed = false;
        for (Map.Entry<String, List<Object>> e : w.getHeaders().entrySet()) {
            typed |= e.getKey().equalsIgnoreCase("Content-Type");
            for (Object v : e.getValue()) headers.add(new String[] {e.getKey(), String.valueOf(v)});
        }
        if (!typed && w.getMediaType() != null) headers.add(new String[] {"Content-Type", w.getMediaType().toString()});
        return headers;
    }

    @Override public OutputStream output(Object writer) { return ((WriterInterceptorContext) writer).getOutputStream(); }

    @Override public void setOutput(Object writer, OutputStream out) { ((WriterInterceptorContext) writer).setOutputStream(out); }

    @Override public void proceed(Object writer) throws IOException { ((WriterInterceptorContext) writer).proceed(); }

    private static List<String[]> pairs(MultivaluedMap<String, String> map) {
        List<String[]> headers = new ArrayList<>();
        for (Map.Entry<String, List<String>> e : map.entrySet()) for (String v : e.getValue()) headers.add(new String[] {e.getKey(), v});
        return headers;
    }
}
