package dev.idempotency.agent.core.effects;

import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.io.IOException;
import java.net.HttpURLConnection;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.HashSet;
import java.util.Locale;
import java.util.Set;

/**
 * Names an outbound HTTP call for its effect mark ("HTTP POST https://psp.example/charges"), from the objects the
 * hooks see: the JDK's HttpURLConnection or HttpRequest, Apache HttpClient's request, OkHttp's call. Read through
 * their public API by reflection, because the agent does not ship those libraries. Safe methods have no effect to mark.
 */
final class OutboundCalls {
    private static final Set<String> SAFE = new HashSet<>(java.util.Arrays.asList("GET", "HEAD", "OPTIONS", "TRACE"));

    private OutboundCalls() {
    }

    /** An unsafe call's method (upper case) and URL (absolute where the client has one), as its hook sees it. */
    static final class Call {
        final String method;
        final String url;

        Call(String method, String url) {
            this.method = method;
            this.url = url;
        }

        /** The call's name for its mark. The query may carry secrets: it is not kept. */
        String describe() {
            return method == null ? "HTTP call by " + url : "HTTP " + method + " " + withoutQuery(url);
        }
    }

    /** The call; null for a safe method. An unreadable call has no method, and its type for URL. */
    static Call read(Object target) {
        String method;
        String url;
        if (target instanceof HttpURLConnection) {
            HttpURLConnection connection = (HttpURLConnection) target;
            // with output enabled the JDK sends a GET as a POST
            method = connection.getDoOutput() && "GET".equals(connection.getRequestMethod()) ? "POST" : connection.getRequestMethod();
            url = String.valueOf(connection.getURL());
        } else {
            Object request = okHttpRequest(target);
            if (request == null) request = target;
            Object line = invoke(request, "getRequestLine"); // Apache HttpClient 4
            Object source = line != null ? line : request;
            method = text(firstOf(source, "method", "getMethod"));
            url = text(firstOf(source, "uri", "getUri", "url", "getRequestUri"));
            if (method == null) return new Call(null, target.getClass().getName());
        }
        String upper = method == null ? "" : method.toUpperCase(Locale.ROOT);
        if (SAFE.contains(upper)) return null;
        return new Call(upper, url);
    }

    /** OkHttp: the call holds its request; null for any other target. */
    private static Object okHttpRequest(Object target) {
        return target.getClass().getName().startsWith("okhttp3.") ? invoke(target, "request") : null;
    }

    /** The value of a request header the application set on the call; null when it set none. */
    static String header(Object target, String name) {
        if (target instanceof HttpURLConnection) return ((HttpURLConnection) target).getRequestProperty(name);
        Object okHttp = okHttpRequest(target);
        if (okHttp != null) return text(invoke(okHttp, "header", name));
        Object headers = invoke(target, "headers"); // the JDK's HttpRequest
        if (headers != null) {
            Object first = invoke(headers, "firstValue", name);
            return first instanceof java.util.Optional ? (String) ((java.util.Optional<?>) first).orElse(null) : null;
        }
        Object header = invoke(target, "getFirstHeader", name); // Apache HttpClient 4 and 5
        return header == null ? null : text(invoke(header, "getValue"));
    }

    /**
     * The call with the header set (replacing one of that name): the same object where the client's request can change (HttpURLConnection, Apache
     * HttpClient's request, an OkHttp call, whose request is replaced inside it), a rebuilt request where it cannot (the
     * JDK's HttpRequest). Throws when the header could not be added.
     */
    static Object withHeader(Object target, String name, String value) throws ReflectiveOperationException {
        if (target instanceof HttpURLConnection) {
            ((HttpURLConnection) target).setRequestProperty(name, value); // replaces
            return target;
        }
        Object okHttp = okHttpRequest(target);
        if (okHttp != null) {
            Object builder = invoke(okHttp, "newBuilder");
            builder = invokeOrFail(builder, "header", name, value);
            replaceField(target, okHttp, invokeOrFail(builder, "build"));
            return target;
        }
        if (target.getClass().getName().startsWith("jdk.internal.net.http.") || target.getClass().getName().startsWith("java.net.http.")) {
            return JdkRequests.withHeader(target, name, value);
        }
        invokeOrFail(target, "setHeader", name, value); // Apache HttpClient 4 and 5: replaces a header of that name
        return target;
    }

    /** Replaces, inside {@code holder}, the field that holds {@code old} (OkHttp's call and its final request). */
    private static void replaceField(Object holder, Object old, Object replacement) throws ReflectiveOperationException {
        for (Class<?> type = holder.getClass(); type != null; type = type.getSuperclass()) {
            for (java.lang.reflect.Field field : type.getDeclaredFields()) {
                if (Modifier.isStatic(field.getModifiers()) || field.getType().isPrimitive()) continue;
                field.setAccessible(true);
                if (field.get(holder) == old) {
                    field.set(holder, replacement);
                    return;
                }
            }
        }
        throw new NoSuchFieldException("no field of " + holder.getClass().getName() + " holds its request");
    }

    /** A JMS send, named by its producer's destination where it has one. */
    static String describeMessage(Object producer) {
        Object destination = invoke(producer, "getDestination");
        return "JMS send " + (destination != null ? "to " + destination : "by " + producer.getClass().getName());
    }

    /**
     * What a refused JMS send throws: the JMSException of the producer's own API (javax or jakarta), which the
     * application handles; an IOException where it cannot be made.
     */
    static Exception jmsRefusal(Object producer, String message) {
        for (Class<?> type = producer.getClass(); type != null; type = type.getSuperclass()) {
            for (Class<?> api : type.getInterfaces()) {
                String name = api.getName();
                if (!name.startsWith("javax.jms.") && !name.startsWith("jakarta.jms.")) continue;
                try {
                    Class<?> exception = Class.forName(name.substring(0, name.lastIndexOf('.') + 1) + "JMSException", false, api.getClassLoader());
                    return (Exception) exception.getConstructor(String.class).newInstance(message);
                } catch (ReflectiveOperationException | RuntimeException e) {
                    break;
                }
            }
        }
        return new IOException(message);
    }

    private static String withoutQuery(String url) {
        if (url == null) return "";
        int query = url.indexOf('?');
        return query < 0 ? url : url.substring(0, query);
    }

    private static Object firstOf(Object target, String... names) {
        for (String name : names) {
            Object value = invoke(target, name);
            if (value != null) return value;
        }
        return null;
    }

    private static String text(Object value) {
        return value == null ? null : value.toString();
    }

    /** A public method taking {@code arguments} (strings), called through a public type that declares it; null when there is none or it fails. */
    static Object invoke(Object target, String name, String... arguments) {
        try {
            return invokeOrFail(target, name, (Object[]) arguments);
        } catch (ReflectiveOperationException | RuntimeException e) {
            return null;
        }
    }

    /**
     * As {@link #invoke}, failing when there is no such method or it fails. A parameter typed {@code Object} takes a
     * string too (Apache HttpClient 5's {@code addHeader(String, Object)}).
     */
    static Object invokeOrFail(Object target, String name, Object... arguments) throws ReflectiveOperationException {
        Deque<Class<?>> types = new ArrayDeque<>();
        Set<Class<?>> seen = new HashSet<>();
        types.add(target.getClass());
        ReflectiveOperationException failure = null;
        while (!types.isEmpty()) {
            Class<?> type = types.poll();
            if (!seen.add(type)) continue;
            if (Modifier.isPublic(type.getModifiers())) {
                for (Method method : type.getMethods()) {
                    if (!method.getName().equals(name) || !accepts(method.getParameterTypes(), arguments)) continue;
                    if (!Modifier.isPublic(method.getDeclaringClass().getModifiers())) continue;
                    try {
                        return method.invoke(target, arguments);
                    } catch (java.lang.reflect.InvocationTargetException e) {
                        throw e; // the method ran and failed: no other type would do better
                    } catch (ReflectiveOperationException | RuntimeException inaccessible) {
                        // a type of a module that does not open it: its public supertypes are tried next
                        failure = inaccessible instanceof ReflectiveOperationException ? (ReflectiveOperationException) inaccessible
                                : new IllegalAccessException(inaccessible.toString());
                    }
                }
            }
            if (type.getSuperclass() != null) types.add(type.getSuperclass());
            for (Class<?> i : type.getInterfaces()) types.add(i);
        }
        throw failure != null ? failure : new NoSuchMethodException(target.getClass().getName() + "." + name);
    }

    private static boolean accepts(Class<?>[] parameters, Object[] arguments) {
        if (parameters.length != arguments.length) return false;
        for (Class<?> p : parameters) if (p != String.class && p != Object.class && p != CharSequence.class) return false;
        return true;
    }
}
