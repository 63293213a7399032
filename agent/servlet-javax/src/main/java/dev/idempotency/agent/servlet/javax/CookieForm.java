package dev.idempotency.agent.servlet.javax;

import java.lang.reflect.Method;
import java.util.Map;
import javax.servlet.http.Cookie;

/**
 * A cookie the application added, written as a Set-Cookie value the agent can read back: some containers (Undertow,
 * Open Liberty) keep added cookies apart from the headers and write them only at commit, in their own form (and Liberty
 * with cache headers of its own), so the cookie is recorded as added and added again on replay, for the container to
 * write as it did the first time. Attributes beyond Servlet 3.1's (SameSite and the like, Servlet 6) come by reflection.
 */
final class CookieForm {
    private CookieForm() {
    }

    static String write(Cookie cookie) {
        StringBuilder form = new StringBuilder(cookie.getName()).append('=').append(cookie.getValue() == null ? "" : cookie.getValue());
        if (cookie.getPath() != null) form.append("; Path=").append(cookie.getPath());
        if (cookie.getDomain() != null) form.append("; Domain=").append(cookie.getDomain());
        if (cookie.getMaxAge() >= 0) form.append("; Max-Age=").append(cookie.getMaxAge());
        if (cookie.getSecure()) form.append("; Secure");
        if (cookie.isHttpOnly()) form.append("; HttpOnly");
        if (cookie.getVersion() != 0) form.append("; Version=").append(cookie.getVersion());
        for (Map.Entry<String, String> attribute : servlet6Attributes(cookie).entrySet()) {
            String name = attribute.getKey();
            if (!isServlet31(name)) form.append("; ").append(name).append('=').append(attribute.getValue());
        }
        return form.toString();
    }

    static Cookie read(String form) {
        String[] parts = form.split("; ");
        int eq = parts[0].indexOf('=');
        Cookie cookie = new Cookie(parts[0].substring(0, eq), parts[0].substring(eq + 1));
        for (int i = 1; i < parts.length; i++) {
            int at = parts[i].indexOf('=');
            String name = at < 0 ? parts[i] : parts[i].substring(0, at);
            String value = at < 0 ? "" : parts[i].substring(at + 1);
            if (name.equals("Path")) cookie.setPath(value);
            else if (name.equals("Domain")) cookie.setDomain(value);
            else if (name.equals("Max-Age")) cookie.setMaxAge(Integer.parseInt(value));
            else if (name.equals("Secure")) cookie.setSecure(true);
            else if (name.equals("HttpOnly")) cookie.setHttpOnly(true);
            else if (name.equals("Version")) cookie.setVersion(Integer.parseInt(value));
            else setServlet6Attribute(cookie, name, value);
        }
        return cookie;
    }

    private static boolean isServlet31(String attribute) {
        for (String known : new String[] {"Path", "Domain", "Max-Age", "Secure", "HttpOnly", "Version", "Comment"}) {
            if (known.equalsIgnoreCase(attribute)) return true;
        }
        return false;
    }

    @SuppressWarnings("unchecked")
    private static Map<String, String> servlet6Attributes(Cookie cookie) {
        try {
            Method attributes = Cookie.class.getMethod("getAttributes");
            return (Map<String, String>) attributes.invoke(cookie);
        } catch (ReflectiveOperationException | RuntimeException e) {
            return java.util.Collections.emptyMap();
        }
    }

    static void setServlet6Attribute(Cookie cookie, String name, String value) {
        try {
            Cookie.class.getMethod("setAttribute", String.class, String.class).invoke(cookie, name, value);
        } catch (ReflectiveOperationException | RuntimeException e) {
            // before Servlet 6 a cookie has no other attributes, and none could have been recorded
        }
    }
}
