package dev.idempotency.agent.servlet.javax;

import java.lang.reflect.Method;
import java.util.Map;
import javax.servlet.ServletResponseWrapper;
import javax.servlet.SessionCookieConfig;
import javax.servlet.http.Cookie;
import javax.servlet.http.HttpServletRequest;

/**
 * The session cookie a container holds apart from the response's headers until it commits (Open Liberty, Undertow):
 * its session manager adds the cookie to the container's own response, not through the agent's wrapper, so it is
 * neither among the headers nor among the cookies the application added. Its value is not the session's id: Liberty
 * writes a cache id before it and its clone id after it, WildFly may add a route; so it is read where the container
 * keeps it, by reflection, as the container will write it. Its name is the one the web application's
 * {@link SessionCookieConfig} gives.
 * <ul>
 * <li>Open Liberty: the response's {@code getCookies()} (its {@code IResponse}'s cookies, as servlet cookies; that
 * copy drops HttpOnly, which is the session cookie configuration's).</li>
 * <li>Undertow: the response's {@code getExchange()}, whose {@code responseCookies()} (or, before Undertow 2.2,
 * {@code getResponseCookies()}) holds it.</li>
 * </ul>
 * Where neither is found (any other container, which lists its session cookie among the headers), there is none.
 */
final class HeldSessionCookie {
    private HeldSessionCookie() {
    }

    /** The name of the session cookie of the request's web application, or null if it cannot be told. */
    static String name(HttpServletRequest request) {
        SessionCookieConfig config = config(request);
        if (config == null) return null;
        String name = config.getName();
        return name == null || name.isEmpty() ? "JSESSIONID" : name; // the specification's default
    }

    /**
     * The session cookie named {@code name} that the container behind {@code response} holds apart from its headers,
     * or null.
     */
    static Cookie of(HttpServletRequest request, Object response, String name) {
        Object container = response;
        while (container instanceof ServletResponseWrapper) container = ((ServletResponseWrapper) container).getResponse();
        try {
            Cookie held = fromCookieArray(container, name);
            if (held != null) {
                // Liberty's copy of its cookie drops HttpOnly; the session cookie's comes from its configuration
                SessionCookieConfig config = config(request);
                if (config != null && config.isHttpOnly()) held.setHttpOnly(true);
                return held;
            }
            return fromExchange(container, name);
        } catch (ReflectiveOperationException | RuntimeException e) {
            return null; // a container whose insides differ: its session cookie is not recorded, as before
        }
    }

    private static SessionCookieConfig config(HttpServletRequest request) {
        try {
            return request == null ? null : request.getServletContext().getSessionCookieConfig();
        } catch (RuntimeException e) {
            return null;
        }
    }

    /** Liberty: {@code Cookie[] getCookies()} on the container's response. */
    private static Cookie fromCookieArray(Object container, String name) throws ReflectiveOperationException {
        Method getCookies = COOKIE_ARRAY.get(container.getClass());
        if (getCookies == null) return null;
        Cookie[] cookies = (Cookie[]) getCookies.invoke(container);
        if (cookies == null) return null;
        Cookie found = null;
        for (Cookie cookie : cookies) {
            if (cookie != null && name.equals(cookie.getName())) found = cookie; // the last one set is the one written
        }
        return found == null ? null : (Cookie) found.clone();
    }

    /** Undertow: the exchange's response cookies, each an {@code io.undertow.server.handlers.Cookie}. */
    private static Cookie fromExchange(Object container, String name) throws ReflectiveOperationException {
        Method getExchange = EXCHANGE.get(container.getClass());
        if (getExchange == null) return null;
        Object exchange = getExchange.invoke(container);
        if (exchange == null) return null;
        Method responseCookies = RESPONSE_COOKIES.get(exchange.getClass());
        if (responseCookies == null) return null;
        Object held = responseCookies.invoke(exchange);
        Iterable<?> cookies = held instanceof Map ? ((Map<?, ?>) held).values() : (Iterable<?>) held;
        if (cookies == null) return null;
        Object found = null;
        for (Object cookie : cookies) {
            if (cookie != null && name.equals(call(cookie, "getName"))) found = cookie;
        }
        return found == null ? null : servletCookie(found);
    }

    // Looked up once per class: most responses have none of these, and most keyed requests create no session.

    private static final ClassValue<Method> COOKIE_ARRAY = new ClassValue<Method>() {
        @Override
        protected Method computeValue(Class<?> type) {
            Method m = publicMethod(type, "getCookies");
            return m != null && Cookie[].class.isAssignableFrom(m.getReturnType()) ? m : null;
        }
    };

    private static final ClassValue<Method> EXCHANGE = new ClassValue<Method>() {
        @Override
        protected Method computeValue(Class<?> type) {
            return publicMethod(type, "getExchange");
        }
    };

    /** Undertow 2.2 and later: {@code Iterable responseCookies()}; before: {@code Map getResponseCookies()}. */
    private static final ClassValue<Method> RESPONSE_COOKIES = new ClassValue<Method>() {
        @Override
        protected Method computeValue(Class<?> type) {
            Method iterable = publicMethod(type, "responseCookies");
            if (iterable != null && Iterable.class.isAssignableFrom(iterable.getReturnType())) return iterable;
            Method map = publicMethod(type, "getResponseCookies");
            return map != null && Map.class.isAssignableFrom(map.getReturnType()) ? map : null;
        }
    };

    /** An Undertow cookie as a servlet cookie, every attribute kept (SameSite and the like as Servlet 6 attributes). */
    private static Cookie servletCookie(Object undertow) throws ReflectiveOperationException {
        Cookie cookie = new Cookie((String) call(undertow, "getName"), (String) call(undertow, "getValue"));
        String path = (String) call(undertow, "getPath");
        if (path != null) cookie.setPath(path);
        String domain = (String) call(undertow, "getDomain");
        if (domain != null) cookie.setDomain(domain);
        Integer maxAge = (Integer) call(undertow, "getMaxAge");
        if (maxAge != null) cookie.setMaxAge(maxAge);
        cookie.setSecure(Boolean.TRUE.equals(call(undertow, "isSecure")));
        cookie.setHttpOnly(Boolean.TRUE.equals(call(undertow, "isHttpOnly")));
        Object version = call(undertow, "getVersion");
        if (version instanceof Integer && (Integer) version != 0) cookie.setVersion((Integer) version);
        Method sameSite = publicMethod(undertow.getClass(), "getSameSiteMode");
        Object mode = sameSite == null ? null : sameSite.invoke(undertow);
        if (mode != null) CookieForm.setServlet6Attribute(cookie, "SameSite", mode.toString());
        return cookie;
    }

    private static Object call(Object target, String method) throws ReflectiveOperationException {
        Method m = publicMethod(target.getClass(), method);
        if (m == null) throw new NoSuchMethodException(target.getClass().getName() + "." + method);
        return m.invoke(target);
    }

    /** A public method without parameters, made callable where its class is not public; null where there is none. */
    private static Method publicMethod(Class<?> type, String name) {
        try {
            Method method = type.getMethod(name);
            if (!java.lang.reflect.Modifier.isPublic(method.getDeclaringClass().getModifiers())) method.setAccessible(true);
            return method;
        } catch (NoSuchMethodException | RuntimeException e) {
            return null; // none, or not ours to open
        }
    }
}
