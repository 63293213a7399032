package dev.idempotency.agent.bootstrap.bridge;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.lang.reflect.Method;
import java.util.List;

/** JAX-RS, seen without its namespace; one implementation per namespace, defined next to the JAX-RS API it calls. */
public interface JaxrsAccessor {

    // ---- the request (ContainerRequestContext)

    String method(Object request);

    String header(Object request, String name);

    List<String> headers(Object request, String name);

    /** The request URI's raw path, as the client sent it. */
    String path(Object request);

    String query(Object request);

    /** The raw path of the application's base URI (context path and application path, "/shop/api/"). */
    String basePath(Object request);

    String contentType(Object request);

    /** The request's cookies as [name, value] pairs. */
    List<String[]> cookies(Object request);

    String principalName(Object request);

    InputStream entity(Object request);

    void replaceEntity(Object request, byte[] body);

    /** Answers instead of the resource. */
    void abort(Object request, int status, List<String[]> headers, byte[] body);

    /** A request-scoped property (of a request, response-filter or writer-interceptor context). */
    Object property(Object context, String name);

    void setProperty(Object context, String name, Object value);

    Class<?> resourceClass(Object resourceInfo);

    Method resourceMethod(Object resourceInfo);

    /** True when the matched resource method takes a suspended (@Suspended AsyncResponse) parameter. */
    boolean isSuspended(Object resourceInfo);

    // ---- the response (ContainerResponseContext)

    int status(Object response);

    boolean hasEntity(Object response);

    List<String[]> responseHeaders(Object response);

    // ---- writing the entity (WriterInterceptorContext)

    List<String[]> writerHeaders(Object writer);

    OutputStream output(Object writer);

    void setOutput(Object writer, OutputStream out);

    void proceed(Object writer) throws IOException;
}
