package dev.idempotency.agent.core.protocol;

import java.nio.charset.Charset;
import java.util.Locale;

/** The few things the agent reads from a {@code Content-Type}: its type and its parameters. */
public final class MediaType {
    private MediaType() {
    }

    /** True when the content type's type/subtype (parameters ignored) is {@code type}. */
    public static boolean is(String contentType, String type) {
        return contentType != null && essence(contentType).equals(type);
    }

    /** The type/subtype in lower case, without parameters. */
    public static String essence(String contentType) {
        int semicolon = contentType.indexOf(';');
        return (semicolon < 0 ? contentType : contentType.substring(0, semicolon)).trim().toLowerCase(Locale.ROOT);
    }

    /** A parameter's value (quotes removed), or null. */
    public static String parameter(String contentType, String name) {
        if (contentType == null || contentType.indexOf('=') < 0) return null; // no parameter at all: no split
        for (String part : contentType.split(";")) {
            int eq = part.indexOf('=');
            if (eq < 0 || !part.substring(0, eq).trim().equalsIgnoreCase(name)) continue;
            String value = part.substring(eq + 1).trim();
            if (value.length() >= 2 && value.startsWith("\"") && value.endsWith("\"")) value = value.substring(1, value.length() - 1);
            return value;
        }
        return null;
    }

    /** True when the charset is named and this JVM knows it; also true when none is named. */
    public static boolean charsetSupported(String charset) {
        if (charset == null) return true;
        try {
            return Charset.isSupported(charset.trim());
        } catch (RuntimeException e) {
            return false;
        }
    }
}
