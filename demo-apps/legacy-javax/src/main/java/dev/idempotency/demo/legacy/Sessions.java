package dev.idempotency.demo.legacy;

import java.security.SecureRandom;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import javax.servlet.http.Cookie;
import javax.servlet.http.HttpServletRequest;
import javax.servlet.http.HttpServletResponse;

/** The application's own sessions (no HttpSession): a cookie LEGACY_SESSION naming a user in a server-side map. */
final class Sessions {
    static final String COOKIE = "LEGACY_SESSION";
    private static final Map<String, String> USERS = new ConcurrentHashMap<>();
    private static final SecureRandom RANDOM = new SecureRandom();

    private Sessions() {
    }

    /** Opens a session for {@code user} and sets its cookie on the response. */
    static void open(String user, HttpServletRequest req, HttpServletResponse resp) {
        byte[] bytes = new byte[16];
        RANDOM.nextBytes(bytes);
        StringBuilder token = new StringBuilder();
        for (byte b : bytes) token.append(String.format("%02x", b));
        USERS.put(token.toString(), user);
        Cookie cookie = new Cookie(COOKIE, token.toString());
        cookie.setPath(req.getContextPath().isEmpty() ? "/" : req.getContextPath());
        cookie.setHttpOnly(true);
        resp.addCookie(cookie);
    }

    /** The user of the request's session cookie, or null. */
    static String user(HttpServletRequest req) {
        Cookie[] cookies = req.getCookies();
        if (cookies == null) return null;
        for (Cookie c : cookies) if (COOKIE.equals(c.getName()) && USERS.containsKey(c.getValue())) return USERS.get(c.getValue());
        return null;
    }
}
