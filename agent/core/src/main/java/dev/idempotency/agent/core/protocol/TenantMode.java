package dev.idempotency.agent.core.protocol;

import java.util.Locale;

/** How a request's scope (tenant) is derived: records of different scopes never meet. */
public final class TenantMode {
    public enum Kind { AUTO, PRINCIPAL, HEADER, NONE }

    private final Kind kind;
    private final String headerName;

    private TenantMode(Kind kind, String headerName) {
        this.kind = kind;
        this.headerName = headerName;
    }

    /** {@code auto}, {@code principal}, {@code header:NAME} or {@code none}; null when the value is none of these. */
    public static TenantMode parse(String value) {
        String v = value.trim();
        String lower = v.toLowerCase(Locale.ROOT);
        if (lower.equals("auto")) return new TenantMode(Kind.AUTO, null);
        if (lower.equals("principal")) return new TenantMode(Kind.PRINCIPAL, null);
        if (lower.equals("none")) return new TenantMode(Kind.NONE, null);
        if (lower.startsWith("header:") && v.length() > "header:".length()) {
            String name = v.substring("header:".length()).trim();
            if (name.matches("[A-Za-z0-9!#$%&'*+.^_`|~-]+")) return new TenantMode(Kind.HEADER, name);
        }
        return null;
    }

    public Kind kind() { return kind; }

    public String headerName() { return headerName; }

    @Override
    public String toString() {
        return kind == Kind.HEADER ? "header:" + headerName : kind.name().toLowerCase(Locale.ROOT);
    }
}
