package dev.idempotency.agent.core.protocol;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.regex.Pattern;

/**
 * A list of request-path patterns, matched against the request URI (context path included): {@code *} matches within
 * one path segment, {@code **} matches across segments. {@code /payments/**} matches {@code /payments} and everything
 * below it.
 */
public final class PathPatterns {
    private static final PathPatterns NONE = new PathPatterns(Collections.<String>emptyList(), Collections.<Pattern>emptyList());

    private final List<String> sources;
    private final List<Pattern> patterns;
    /** One of the patterns is {@code /**}, the default include: every normalised path matches, no regex needed. */
    private final boolean everyPath;

    private PathPatterns(List<String> sources, List<Pattern> patterns) {
        this.sources = sources;
        this.patterns = patterns;
        this.everyPath = sources.contains("/**");
    }

    public static PathPatterns none() {
        return NONE;
    }

    /** Parses a comma-separated list; returns null when an entry is not a path pattern. */
    public static PathPatterns parse(String list) {
        List<String> sources = new ArrayList<>();
        List<Pattern> patterns = new ArrayList<>();
        for (String raw : list.split(",")) {
            String p = raw.trim();
            if (p.isEmpty()) continue;
            if (!p.startsWith("/") || p.contains("***")) return null;
            sources.add(p);
            // DOTALL: a decoded path may hold line breaks (%0A), which "**" and the default include must cover too
            patterns.add(Pattern.compile(toRegex(p), Pattern.DOTALL));
        }
        return new PathPatterns(Collections.unmodifiableList(sources), Collections.unmodifiableList(patterns));
    }

    private static String toRegex(String glob) {
        // "/x/**" also matches "/x" itself
        if (glob.endsWith("/**")) return toRegex(glob.substring(0, glob.length() - 3)) + "(/.*)?";
        StringBuilder regex = new StringBuilder();
        for (int i = 0; i < glob.length(); i++) {
            char c = glob.charAt(i);
            if (c != '*') {
                regex.append(Pattern.quote(String.valueOf(c)));
            } else if (i + 1 < glob.length() && glob.charAt(i + 1) == '*') {
                regex.append(".*");
                i++;
            } else {
                regex.append("[^/]*");
            }
        }
        return regex.toString();
    }

    public boolean isEmpty() {
        return patterns.isEmpty();
    }

    /** The patterns as written, in order. */
    public List<String> sources() {
        return sources;
    }

    /** Whether the single pattern {@code source} (one of {@link #sources()}) matches {@code path}. */
    public boolean matches(int index, String path) {
        return patterns.get(index).matcher(path).matches();
    }

    /**
     * Whether pattern {@code index} may match some path below {@code prefix} ({@code prefix} itself or
     * {@code prefix/...}): its literal part before the first {@code *} lies below the prefix, or the prefix lies
     * below that literal part and the pattern goes on with a wildcard. An estimate for wildcard servlet mappings.
     */
    public boolean mayMatchBelow(int index, String prefix) {
        String source = sources.get(index);
        int star = source.indexOf('*');
        if (star < 0) return source.equals(prefix) || source.startsWith(prefix + "/") || prefix.isEmpty();
        String literal = source.substring(0, star);
        return literal.startsWith(prefix + "/") || literal.equals(prefix) || (prefix + "/").startsWith(literal);
    }

    public boolean matches(String path) {
        if (everyPath && path.startsWith("/")) return true;
        for (int i = 0; i < patterns.size(); i++) if (patterns.get(i).matcher(path).matches()) return true;
        return false;
    }

    @Override
    public String toString() {
        return sources.isEmpty() ? "(none)" : String.join(",", sources);
    }
}
