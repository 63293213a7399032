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

    /** The call's name for its mark; null for a safe method. An unreadable call is named by its type, and marked. */
    static String describe(Object target) {
        String method;
        String url;
        if (target instanceof HttpURLConnection) {
            HttpURLConnection connection = (HttpURLConnection) target;
            // with output enabled the JDK sends a GET as a POST
            method = connection.getDoOutput() && "GET".equals(connection.getRequestMethod()) ? "POST" : connection.getRequestMethod();
            url = String.valueOf(connection.getURL());
        } else {
            Object request = target;
            Object call = invoke(target, "request"); // OkHttp: the call holds its request
            if (call != null) request = call;
            Object line = invoke(request, "getRequestLine"); // Apache HttpClient 4
            Object source = line != null ? line : request;
            method = text(firstOf(source, "method", "getMethod"));
            url = text(firstOf(source, "uri", "getUri", "url", "getRequestUri"));
            if (method == null) return "HTTP call by " + target.getClass().getName();
        }
        String upper = method == null ? "" : method.toUpperCase(Locale.ROOT);
        if (SAFE.contains(upper)) return null;
        return "HTTP " + upper + " " + withoutQuery(url);
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

    /** The query may carry secrets: it is not kept. */
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

    /** A public no-argument method, called through a public type that declares it; null when there is none or it fails. */
    private static Object invoke(Object target, String name) {
        Deque<Class<?>> types = new ArrayDeque<>();
        Set<Class<?>> seen = new HashSet<>();
        types.add(target.getClass());
        while (!types.isEmpty()) {
            Class<?> type = types.poll();
            if (!seen.add(type)) continue;
            if (Modifier.isPublic(type.getModifiers())) {
                try {
                    Method method = type.getMethod(name);
                    if (Modifier.isPublic(method.getDeclaringClass().getModifiers())) return method.invoke(target);
                } catch (NoSuchMethodException absent) {
                    continue;
                } catch (ReflectiveOperationException | RuntimeException inaccessible) {
                    // a type of a module that does not open it: its public supertypes are tried next
                }
            }
            if (type.getSuperclass() != null) types.add(type.getSuperclass());
            for (Class<?> i : type.getInterfaces()) types.add(i);
        }
        return null;
    }
}
