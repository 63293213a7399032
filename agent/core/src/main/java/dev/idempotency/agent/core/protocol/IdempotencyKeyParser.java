package dev.idempotency.agent.core.protocol;

import java.util.List;

/**
 * Reads the {@code Idempotency-Key} field: an sf-string ({@code "..."}, RFC 9651, with {@code \"} and {@code \\}
 * escapes) or a bare opaque value (Stripe style). {@code "abc"} and {@code abc} are the same key. The key is 1 to
 * {@code maxLength} printable ASCII characters.
 */
public final class IdempotencyKeyParser {
    private final int maxLength;

    public IdempotencyKeyParser(int maxLength) {
        this.maxLength = maxLength;
    }

    /** The outcome: a key, or why there is none. */
    public static final class Result {
        private final String key;
        private final String problem;

        private Result(String key, String problem) {
            this.key = key;
            this.problem = problem;
        }

        public boolean valid() { return key != null; }
        public String key() { return key; }
        /** Why the field is not a usable key; null when valid. */
        public String problem() { return problem; }
    }

    /** Parses every field of the header as the request carried them. */
    public Result parse(List<String> fields) {
        if (fields.size() > 1) return invalid("the request carries " + fields.size() + " Idempotency-Key fields; send exactly one");
        return parse(fields.get(0));
    }

    public Result parse(String field) {
        String value = trimOws(field);
        if (value.isEmpty()) return invalid("the Idempotency-Key is empty");
        String key;
        if (value.charAt(0) == '"') {
            key = unquote(value);
            if (key == null) return invalid("the Idempotency-Key starts with a quote but is not a valid sf-string");
        } else {
            key = value;
        }
        if (key.isEmpty()) return invalid("the Idempotency-Key is empty");
        if (key.length() > maxLength) return invalid("the Idempotency-Key is " + key.length() + " characters long; at most " + maxLength + " are accepted");
        for (int i = 0; i < key.length(); i++) {
            char c = key.charAt(i);
            if (c < 0x20 || c > 0x7e) return invalid("the Idempotency-Key contains a character that is not printable ASCII (position " + (i + 1) + ")");
        }
        return new Result(key, null);
    }

    /** The sf-string's content, or null if it is malformed (RFC 9651 section 4.2.5). */
    private static String unquote(String value) {
        StringBuilder out = new StringBuilder(value.length());
        for (int i = 1; i < value.length(); i++) {
            char c = value.charAt(i);
            if (c == '\\') {
                if (++i >= value.length()) return null;
                char next = value.charAt(i);
                if (next != '"' && next != '\\') return null;
                out.append(next);
            } else if (c == '"') {
                return i == value.length() - 1 ? out.toString() : null; // nothing may follow the closing quote
            } else if (c < 0x20 || c > 0x7e) {
                return null;
            } else {
                out.append(c);
            }
        }
        return null; // no closing quote
    }

    private static String trimOws(String s) {
        int start = 0;
        int end = s.length();
        while (start < end && (s.charAt(start) == ' ' || s.charAt(start) == '\t')) start++;
        while (end > start && (s.charAt(end - 1) == ' ' || s.charAt(end - 1) == '\t')) end--;
        return s.substring(start, end);
    }

    private static Result invalid(String why) {
        return new Result(null, why);
    }
}
