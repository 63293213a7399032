package dev.idempotency.agent.servlet.javax;

import java.util.ArrayList;
import java.util.Collection;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;

/**
 * Status and headers of a response whose request the container already ended (an asynchronous timeout): the
 * application's late writes land here, never on the container's response object, which may already serve another
 * request. They are recorded for retries, not sent.
 */
final class DetachedHead {
    private int status;
    private final List<String[]> headers = new ArrayList<>();

    DetachedHead(int status, List<String[]> headers) {
        this.status = status;
        for (String[] h : headers) this.headers.add(new String[] {h[0], h[1]});
    }

    int status() { return status; }

    void status(int status) { this.status = status; }

    void set(String name, String value) {
        headers.removeIf(h -> h[0].equalsIgnoreCase(name));
        if (value != null) headers.add(new String[] {name, value});
    }

    void add(String name, String value) {
        if (value != null) headers.add(new String[] {name, value});
    }

    String get(String name) {
        for (String[] h : headers) if (h[0].equalsIgnoreCase(name)) return h[1];
        return null;
    }

    Collection<String> all(String name) {
        List<String> values = new ArrayList<>();
        for (String[] h : headers) if (h[0].equalsIgnoreCase(name)) values.add(h[1]);
        return values;
    }

    Collection<String> names() {
        LinkedHashSet<String> names = new LinkedHashSet<>();
        for (String[] h : headers) names.add(h[0]);
        return names;
    }

    /** The Content-Type's charset, or ISO-8859-1 as the servlet specification says. */
    String charset() {
        String type = get("Content-Type");
        if (type != null) {
            int i = type.toLowerCase(Locale.ROOT).indexOf("charset=");
            if (i >= 0) return type.substring(i + 8).trim();
        }
        return "ISO-8859-1";
    }
}
