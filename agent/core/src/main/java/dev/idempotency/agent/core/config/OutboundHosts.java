package dev.idempotency.agent.core.config;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Locale;

/**
 * The hosts that honour an idempotency header on their unsafe calls ({@code idempotency.outbound.hosts}), each with the
 * header it expects: {@code api.stripe.com}, {@code *.adyen.com}, {@code api.paypal.com=PayPal-Request-Id}. A pattern
 * {@code *.example.com} matches every subdomain of example.com at any depth, not example.com itself. Nothing is ever
 * sent to a host that no pattern names.
 */
public final class OutboundHosts {
    public static final String DEFAULT_HEADER = "Idempotency-Key";
    private static final String HEADER_NAME = "[A-Za-z0-9!#$%&'*+.^_`|~-]+";
    private static final String HOST_LABEL = "[a-z0-9_]([a-z0-9_-]*[a-z0-9_])?";
    private static final String HOST = HOST_LABEL + "(\\." + HOST_LABEL + ")*";
    private static final String IPV6 = "\\[[0-9a-f:.]+\\]";

    private static final class Rule {
        final String host;
        final boolean subdomains;
        final String header;

        Rule(String host, boolean subdomains, String header) {
            this.host = host;
            this.subdomains = subdomains;
            this.header = header;
        }

        boolean matches(String candidate) {
            return subdomains ? candidate.endsWith("." + host) : candidate.equals(host);
        }

        @Override
        public String toString() {
            return (subdomains ? "*." : "") + host + (DEFAULT_HEADER.equals(header) ? "" : "=" + header);
        }
    }

    private final List<Rule> rules;

    private OutboundHosts(List<Rule> rules) {
        this.rules = rules;
    }

    public static final OutboundHosts NONE = new OutboundHosts(Collections.<Rule>emptyList());

    /** Parses the setting; null when any entry is malformed (the caller names the setting and what it accepts). */
    public static OutboundHosts parse(String value) {
        List<Rule> rules = new ArrayList<>();
        for (String raw : value.split(",")) {
            String entry = raw.trim();
            if (entry.isEmpty()) continue;
            String header = DEFAULT_HEADER;
            int equals = entry.indexOf('=');
            if (equals >= 0) {
                header = entry.substring(equals + 1).trim();
                entry = entry.substring(0, equals).trim();
                if (!header.matches(HEADER_NAME)) return null;
            }
            String host = entry.toLowerCase(Locale.ROOT);
            boolean subdomains = host.startsWith("*.");
            if (subdomains) host = host.substring(2);
            // a host name or an address: no scheme, port, path or wildcard anywhere but in front
            if (!(host.matches(HOST) || (!subdomains && host.matches(IPV6)))) return null;
            // *.com or *.1 would name whole top-level domains or address ranges: a wildcard needs a registrable domain
            if (subdomains && (host.indexOf('.') < 0 || host.substring(host.lastIndexOf('.') + 1).matches("[0-9]+"))) return null;
            rules.add(new Rule(host, subdomains, header));
        }
        return rules.isEmpty() ? NONE : new OutboundHosts(Collections.unmodifiableList(rules));
    }

    public boolean isEmpty() { return rules.isEmpty(); }

    /** The header {@code host} expects its key in; null for a host no pattern names. The first matching pattern wins. */
    public String headerFor(String host) {
        if (host == null || rules.isEmpty()) return null;
        String h = host.toLowerCase(Locale.ROOT);
        if (h.endsWith(".")) h = h.substring(0, h.length() - 1); // the fully qualified form names the same host
        for (Rule rule : rules) if (rule.matches(h)) return rule.header;
        return null;
    }

    @Override
    public String toString() {
        List<String> shown = new ArrayList<>();
        for (Rule rule : rules) shown.add(rule.toString());
        return String.join(",", shown);
    }
}
