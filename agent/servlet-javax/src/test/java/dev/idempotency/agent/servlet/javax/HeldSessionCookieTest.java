package dev.idempotency.agent.servlet.javax;

import org.junit.jupiter.api.Test;

import java.lang.reflect.Proxy;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import javax.servlet.ServletContext;
import javax.servlet.SessionCookieConfig;
import javax.servlet.http.Cookie;
import javax.servlet.http.HttpServletRequest;
import javax.servlet.http.HttpServletResponse;
import javax.servlet.http.HttpServletResponseWrapper;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

/**
 * The session cookie is read where each container holds it, in the shapes Open Liberty and Undertow give it, through
 * the application's wrappers; its name is the web application's.
 */
class HeldSessionCookieTest {

    @Test
    void theNameIsTheWebApplicationsOrTheSpecificationsDefault() {
        assertEquals("JSESSIONID", HeldSessionCookie.name(request(null, false)));
        assertEquals("SHOPSESSION", HeldSessionCookie.name(request("SHOPSESSION", false)));
        assertNull(HeldSessionCookie.name(null));
    }

    @Test
    void libertysCookieKeepsItsValueAndTakesHttpOnlyFromTheConfiguration() {
        Cookie theme = new Cookie("theme", "dark");
        Cookie session = new Cookie("JSESSIONID", "0000AbCdEfGhIjKlMnOpQrStUvW:f1b2c3d4");
        session.setPath("/");
        HttpServletResponse liberty = liberty(theme, session);
        // behind an application's wrapper, as the agent finds it
        Cookie held = HeldSessionCookie.of(request(null, true), new HttpServletResponseWrapper(liberty), "JSESSIONID");
        assertEquals("JSESSIONID=0000AbCdEfGhIjKlMnOpQrStUvW:f1b2c3d4; Path=/; HttpOnly", CookieForm.write(held));
        assertEquals(false, session.isHttpOnly(), "the container's own cookie is left alone");
        assertNull(HeldSessionCookie.of(request(null, true), liberty, "OTHER"));
    }

    @Test
    void undertowsCookieComesWithEveryAttribute() {
        Map<String, Object> cookie = new LinkedHashMap<>();
        cookie.put("getName", "JSESSIONID");
        cookie.put("getValue", "x7Yq3kPz.node-1");
        cookie.put("getPath", "/shop");
        cookie.put("getMaxAge", 1800);
        cookie.put("isSecure", true);
        cookie.put("isHttpOnly", true);
        cookie.put("getVersion", 0);
        Object exchange = new UndertowExchange(Arrays.asList(undertowCookie(cookie)));
        Cookie held = HeldSessionCookie.of(request(null, false), new Undertow(exchange), "JSESSIONID");
        assertEquals("JSESSIONID=x7Yq3kPz.node-1; Path=/shop; Max-Age=1800; Secure; HttpOnly", CookieForm.write(held));
    }

    @Test
    void noneWhereTheContainerHoldsNothingTheAgentCanRead() {
        HttpServletResponse plain = (HttpServletResponse) Proxy.newProxyInstance(getClass().getClassLoader(),
                new Class<?>[] {HttpServletResponse.class}, (proxy, method, args) -> null);
        assertNull(HeldSessionCookie.of(request(null, true), plain, "JSESSIONID"));
        assertNull(HeldSessionCookie.of(request(null, true), new Undertow(new UndertowExchange(new ArrayList<>())), "JSESSIONID"));
    }

    /** As Liberty's response: its cookies as servlet cookies, HttpOnly dropped. */
    public interface LibertyResponse extends HttpServletResponse {
        Cookie[] getCookies();
    }

    private static HttpServletResponse liberty(Cookie... cookies) {
        return (HttpServletResponse) Proxy.newProxyInstance(HeldSessionCookieTest.class.getClassLoader(),
                new Class<?>[] {LibertyResponse.class}, (proxy, method, args) -> method.getName().equals("getCookies") ? cookies : null);
    }

    /** As Undertow's servlet response: its exchange. */
    public static final class Undertow {
        private final Object exchange;

        Undertow(Object exchange) {
            this.exchange = exchange;
        }

        public Object getExchange() {
            return exchange;
        }
    }

    /** As Undertow's exchange: the cookies of its response. */
    public static final class UndertowExchange {
        private final List<Object> cookies;

        UndertowExchange(List<Object> cookies) {
            this.cookies = cookies;
        }

        public Iterable<Object> responseCookies() {
            return cookies;
        }
    }

    /** As an Undertow cookie: the getters it has, answering from {@code values}. */
    public interface UndertowCookie {
        String getName();
        String getValue();
        String getPath();
        String getDomain();
        Integer getMaxAge();
        boolean isSecure();
        boolean isHttpOnly();
        int getVersion();
    }

    private static Object undertowCookie(Map<String, Object> values) {
        return Proxy.newProxyInstance(HeldSessionCookieTest.class.getClassLoader(), new Class<?>[] {UndertowCookie.class},
                (proxy, method, args) -> values.get(method.getName()));
    }

    private static HttpServletResponse plainResponse() {
        return (HttpServletResponse) Proxy.newProxyInstance(HeldSessionCookieTest.class.getClassLoader(),
                new Class<?>[] {HttpServletResponse.class}, (proxy, method, args) -> null);
    }

    private static HttpServletRequest request(String cookieName, boolean httpOnly) {
        SessionCookieConfig config = (SessionCookieConfig) Proxy.newProxyInstance(HeldSessionCookieTest.class.getClassLoader(),
                new Class<?>[] {SessionCookieConfig.class}, (proxy, method, args) -> {
                    if (method.getName().equals("getName")) return cookieName;
                    if (method.getName().equals("isHttpOnly")) return httpOnly;
                    return null;
                });
        ServletContext context = (ServletContext) Proxy.newProxyInstance(HeldSessionCookieTest.class.getClassLoader(),
                new Class<?>[] {ServletContext.class}, (proxy, method, args) -> method.getName().equals("getSessionCookieConfig") ? config : null);
        return (HttpServletRequest) Proxy.newProxyInstance(HeldSessionCookieTest.class.getClassLoader(),
                new Class<?>[] {HttpServletRequest.class}, (proxy, method, args) -> method.getName().equals("getServletContext") ? context : null);
    }
}
