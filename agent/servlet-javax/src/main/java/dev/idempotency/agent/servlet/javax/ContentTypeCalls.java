package dev.idempotency.agent.servlet.javax;

import java.util.Locale;
import javax.servlet.http.HttpServletResponse;

/**
 * Sets a recorded Content-Type with the calls that make the container write it as recorded, byte for byte. A container
 * may write one media type in more than one form, by the calls that set it: Undertow writes a charset given in the
 * type (setContentType("text/plain; charset=UTF-8"), or a writer's default) as {@code text/plain;charset=UTF-8}, and
 * one set before a type without it (setCharacterEncoding, then setContentType("text/plain")) as
 * {@code text/plain; charset=UTF-8}. The recorded value is set the plain way first; where the container lists a
 * different value among its headers, the charset is set first and the type after it; where that does not give the
 * recorded value either, the plain way is set again. A container that does not list the type among its headers
 * (Tomcat writes it at commit, from its fields) writes it by its own rules, which gave the recorded value.
 */
final class ContentTypeCalls {
    private ContentTypeCalls() {
    }

    static void set(HttpServletResponse response, String recorded) {
        response.setContentType(recorded);
        String[] charsetFirst = charsetLast(recorded);
        if (charsetFirst == null || written(response, recorded)) return;
        response.setCharacterEncoding(charsetFirst[1]);
        response.setContentType(charsetFirst[0]);
        if (!written(response, recorded)) response.setContentType(recorded);
    }

    /** True unless the container lists a Content-Type other than {@code recorded}. */
    private static boolean written(HttpServletResponse response, String recorded) {
        String listed = response.getHeader("Content-Type");
        return listed == null || listed.equals(recorded);
    }

    /**
     * A media type whose last parameter is its charset, unquoted: the type without that parameter, and the charset;
     * else null. {@code text/plain; charset=UTF-8} is {@code text/plain} and {@code UTF-8}.
     */
    static String[] charsetLast(String type) {
        int separator = type.lastIndexOf(';');
        if (separator <= 0) return null;
        String parameter = type.substring(separator + 1).trim();
        if (!parameter.toLowerCase(Locale.ROOT).startsWith("charset=")) return null;
        String charset = parameter.substring("charset=".length());
        if (charset.isEmpty() || charset.indexOf('"') >= 0) return null;
        String bare = type.substring(0, separator).trim();
        return bare.isEmpty() ? null : new String[] {bare, charset};
    }
}
