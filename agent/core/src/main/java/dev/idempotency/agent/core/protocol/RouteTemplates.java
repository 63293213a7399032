package dev.idempotency.agent.core.protocol;

import java.lang.annotation.Annotation;
import java.lang.reflect.Method;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The route of a JAX-RS resource method, "POST /orders/{id}/payments": its HTTP method and its path template
 * relative to the application. Read from the annotations of either namespace (javax.ws.rs or jakarta.ws.rs), on the
 * class and the method, or, when the method carries none, on the interface or superclass method it implements.
 */
public final class RouteTemplates {
    /** Per resource class, so that entries go away with the class (redeployed applications). */
    private final ClassValue<Map<Method, String>> cache = new ClassValue<Map<Method, String>>() {
        @Override
        protected Map<Method, String> computeValue(Class<?> type) {
            return new ConcurrentHashMap<>();
        }
    };

    /** The route, or null when the method is not a JAX-RS resource method. */
    public String of(Class<?> resourceClass, Method method) {
        if (resourceClass == null || method == null) return null;
        Map<Method, String> routes = cache.get(resourceClass);
        String route = routes.get(method);
        if (route == null) {
            route = compute(resourceClass, method);
            routes.put(method, route == null ? "" : route);
        }
        return route == null || route.isEmpty() ? null : route;
    }

    private static String compute(Class<?> resourceClass, Method method) {
        Method annotated = annotatedDeclaration(method);
        if (annotated == null) return null;
        String httpMethod = null;
        String methodPath = "";
        for (Annotation a : annotated.getAnnotations()) {
            if (isPath(a)) methodPath = value(a);
            for (Annotation meta : a.annotationType().getAnnotations()) {
                if (meta.annotationType().getName().endsWith(".ws.rs.HttpMethod")) httpMethod = value(meta);
            }
        }
        if (httpMethod == null) return null;
        return normalise(httpMethod + " /" + classPath(resourceClass) + "/" + methodPath);
    }

    /** "POST /orders/{id}/payments": one leading slash, no doubled or trailing ones. */
    public static String normalise(String route) {
        int space = route.indexOf(' ');
        String path = route.substring(space + 1).replaceAll("/+", "/");
        if (path.length() > 1 && path.endsWith("/")) path = path.substring(0, path.length() - 1);
        return route.substring(0, space) + " " + (path.startsWith("/") ? path : "/" + path);
    }

    private static String classPath(Class<?> type) {
        for (Class<?> c = type; c != null && c != Object.class; c = c.getSuperclass()) {
            String path = pathOf(c);
            if (path != null) return path;
            for (Class<?> i : c.getInterfaces()) {
                path = pathOf(i);
                if (path != null) return path;
            }
        }
        return "";
    }

    private static String pathOf(Class<?> type) {
        for (Annotation a : type.getAnnotations()) if (isPath(a)) return value(a);
        return null;
    }

    /** The method itself if it carries JAX-RS annotations, else the interface or superclass method it implements. */
    private static Method annotatedDeclaration(Method method) {
        if (hasJaxrsAnnotation(method)) return method;
        for (Class<?> c = method.getDeclaringClass(); c != null && c != Object.class; c = c.getSuperclass()) {
            Method m = declared(c, method);
            if (m != null && hasJaxrsAnnotation(m)) return m;
            for (Class<?> i : c.getInterfaces()) {
                m = declared(i, method);
                if (m != null && hasJaxrsAnnotation(m)) return m;
            }
        }
        return null;
    }

    private static Method declared(Class<?> type, Method like) {
        try {
            return type.getDeclaredMethod(like.getName(), like.getParameterTypes());
        } catch (NoSuchMethodException e) {
            return null;
        }
    }

    private static boolean hasJaxrsAnnotation(Method m) {
        for (Annotation a : m.getAnnotations()) if (a.annotationType().getName().contains(".ws.rs.")) return true;
        return false;
    }

    private static boolean isPath(Annotation a) {
        String name = a.annotationType().getName();
        return name.equals("javax.ws.rs.Path") || name.equals("jakarta.ws.rs.Path");
    }

    private static String value(Annotation a) {
        try {
            return String.valueOf(a.annotationType().getMethod("value").invoke(a));
        } catch (ReflectiveOperationException e) {
            return "";
        }
    }
}
