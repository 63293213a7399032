package dev.idempotency.agent.servlet.javax;

import org.junit.jupiter.api.Test;

import javax.servlet.http.Cookie;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** A cookie recorded as added comes back with every attribute Servlet 3.1 gives it. */
class CookieFormTest {

    @Test
    void everyAttributeComesBack() {
        Cookie added = new Cookie("theme", "dark=very");
        added.setPath("/shop");
        added.setDomain("example.test");
        added.setMaxAge(3600);
        added.setSecure(true);
        added.setHttpOnly(true);
        added.setVersion(1);
        String form = CookieForm.write(added);
        assertEquals("theme=dark=very; Path=/shop; Domain=example.test; Max-Age=3600; Secure; HttpOnly; Version=1", form);
        Cookie read = CookieForm.read(form);
        assertEquals("theme", read.getName());
        assertEquals("dark=very", read.getValue());
        assertEquals("/shop", read.getPath());
        assertEquals("example.test", read.getDomain());
        assertEquals(3600, read.getMaxAge());
        assertTrue(read.getSecure());
        assertTrue(read.isHttpOnly());
        assertEquals(1, read.getVersion());
    }

    @Test
    void aSessionCookieAndADeletionKeepWhatTheySay() {
        Cookie session = CookieForm.read(CookieForm.write(new Cookie("pref", "")));
        assertEquals("", session.getValue());
        assertEquals(-1, session.getMaxAge(), "no Max-Age: a session cookie");
        assertNull(session.getPath());
        assertFalse(session.isHttpOnly());
        Cookie deleted = new Cookie("pref", "");
        deleted.setMaxAge(0);
        assertEquals(0, CookieForm.read(CookieForm.write(deleted)).getMaxAge());
    }
}
