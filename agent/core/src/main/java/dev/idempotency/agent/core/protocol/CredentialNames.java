package dev.idempotency.agent.core.protocol;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Locale;
import java.util.regex.Pattern;

/**
 * Names of cookies or headers that carry credentials, as case-insensitive patterns ({@code *} matches anything):
 * {@code *sess*} matches {@code JSESSIONID} and {@code LEGACY_SESSION}.
 */
public final class CredentialNames {
    private final List<String> sources;
    private final List<Pattern> patterns;

    private CredentialNames(List<String> sources, List<Pattern> patterns) {
        this.sources = sources;
        this.patterns = patterns;
    }

    /** A comma-separated list; null when an entry is not a token with optional {@code *}. */
    public static CredentialNames parse(String list) {
        List<String> sources = new ArrayList<>();
        List<Pattern> patterns = new ArrayList<>();
        for (String raw : list.split(",")) {
            String name = raw.trim();
            if (name.isEmpty()) continue;
            if (!name.matches("[A-Za-z0-9!#$%&'*+.^_`|~-]+")) return null;
            sources.add(name);
            StringBuilder regex = new StringBuilder();
            for (char c : name.toLowerCase(Locale.ROOT).toCharArray()) regex.append(c == '*' ? ".*" : Pattern.quote(String.valueOf(c)));
            patterns.add(Pattern.compile(regex.toString()));
        }
        return new CredentialNames(Collections.unmodifiableList(sources), Collections.unmodifiableList(patterns));
    }

    public boolean isEmpty() { return patterns.isEmpty(); }

    /** The configured names as written; exact names can be looked up directly. */
    public List<String> names() { return sources; }

    public boolean matches(String name) {
        String lower = name.toLowerCase(Locale.ROOT);
        for (Pattern p : patterns) if (p.matcher(lower).matches()) return true;
        return false;
    }

    @Override
    public String toString() {
        return sources.isEmpty() ? "(none)" : String.join(",", sources);
    }
}
