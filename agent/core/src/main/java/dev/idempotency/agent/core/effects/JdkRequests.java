package dev.idempotency.agent.core.effects;

import java.lang.reflect.Method;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.BiPredicate;

/**
 * The JDK's {@code java.net.http.HttpRequest} (Java 11+) rebuilt with a header set: it cannot change. Reached by
 * reflection through its public API types, because the agent compiles for Java 8.
 */
final class JdkRequests {
    private JdkRequests() {
    }

    static Object withHeader(Object request, String name, String value) throws ReflectiveOperationException {
        Class<?> requestType = Class.forName("java.net.http.HttpRequest");
        Class<?> builderType = Class.forName("java.net.http.HttpRequest$Builder");
        Object builder;
        try {
            // Java 16+: a builder that starts as a copy of the request, without the header being set
            BiPredicate<String, String> otherHeaders = (n, v) -> !n.equalsIgnoreCase(name);
            builder = requestType.getMethod("newBuilder", requestType, BiPredicate.class).invoke(null, request, otherHeaders);
        } catch (NoSuchMethodException java11) {
            builder = copy(request, requestType, builderType, name);
        }
        builderType.getMethod("header", String.class, String.class).invoke(builder, name, value);
        return builderType.getMethod("build").invoke(builder);
    }

    /** Java 11 to 15: the same URI, method and body, headers but {@code without}, timeout, version and expect-continue. */
    private static Object copy(Object request, Class<?> requestType, Class<?> builderType, String without) throws ReflectiveOperationException {
        Object builder = requestType.getMethod("newBuilder", java.net.URI.class).invoke(null, requestType.getMethod("uri").invoke(request));
        Class<?> publisherType = Class.forName("java.net.http.HttpRequest$BodyPublisher");
        Optional<?> body = (Optional<?>) requestType.getMethod("bodyPublisher").invoke(request);
        Object publisher = body.isPresent() ? body.get()
                : Class.forName("java.net.http.HttpRequest$BodyPublishers").getMethod("noBody").invoke(null);
        builderType.getMethod("method", String.class, publisherType).invoke(builder, requestType.getMethod("method").invoke(request), publisher);
        Object headers = requestType.getMethod("headers").invoke(request);
        @SuppressWarnings("unchecked")
        Map<String, List<String>> all = (Map<String, List<String>>) Class.forName("java.net.http.HttpHeaders").getMethod("map").invoke(headers);
        Method header = builderType.getMethod("header", String.class, String.class);
        for (Map.Entry<String, List<String>> e : all.entrySet()) {
            if (e.getKey().equalsIgnoreCase(without)) continue;
            for (String v : e.getValue()) header.invoke(builder, e.getKey(), v);
        }
        Optional<?> timeout = (Optional<?>) requestType.getMethod("timeout").invoke(request);
        if (timeout.isPresent()) builderType.getMethod("timeout", java.time.Duration.class).invoke(builder, timeout.get());
        Optional<?> version = (Optional<?>) requestType.getMethod("version").invoke(request);
        if (version.isPresent()) {
            builderType.getMethod("version", Class.forName("java.net.http.HttpClient$Version")).invoke(builder, version.get());
        }
        builderType.getMethod("expectContinue", boolean.class).invoke(builder, requestType.getMethod("expectContinue").invoke(request));
        return builder;
    }
}
