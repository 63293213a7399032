package dev.idempotency.agent.core.telemetry;

import dev.idempotency.agent.core.protocol.PathPatterns;

import java.util.List;

/**
 * How far the path patterns of {@code idempotency.required} reach into a servlet's mappings: whether every request a
 * mapping serves is required to carry a key, some may be, or none. A servlet mapping is exact ("/checkout"), a prefix
 * ("/api/*"), an extension ("*.do") or the default ("/").
 */
final class MappingCoverage {
    private MappingCoverage() {
    }

    /**
     * "path" when every mapping's paths are required (an exact mapping matched, or a pattern {@code P/**} over a
     * wildcard mapping's prefix), "partly" when a pattern may match some of its paths, else "no".
     */
    static String of(PathPatterns paths, String contextPath, List<String> patterns) {
        if (paths.isEmpty() || patterns.isEmpty()) return "no";
        boolean all = true;
        boolean some = false;
        for (String mapping : patterns) {
            boolean full = false;
            boolean partial = false;
            for (int i = 0; i < paths.sources().size(); i++) {
                if (covers(paths, i, contextPath, mapping)) full = true;
                else if (mayMatch(paths, i, contextPath, mapping)) partial = true;
            }
            all &= full;
            some |= full || partial;
        }
        return all ? "path" : some ? "partly" : "no";
    }

    /** Whether pattern {@code i} may match some path the mapping serves. */
    static boolean mayMatch(PathPatterns paths, int i, String contextPath, String mapping) {
        if (isExact(mapping)) return paths.matches(i, contextPath + mapping);
        if (mapping.startsWith("*.") && !paths.sources().get(i).endsWith("*")
                && !paths.sources().get(i).endsWith(mapping.substring(1))) {
            return false;
        }
        return paths.mayMatchBelow(i, prefixOf(contextPath, mapping));
    }

    private static boolean covers(PathPatterns paths, int i, String contextPath, String mapping) {
        if (isExact(mapping)) return paths.matches(i, contextPath + mapping);
        String source = paths.sources().get(i);
        if (!source.endsWith("/**")) return false;
        String base = source.substring(0, source.length() - 3);
        String prefix = prefixOf(contextPath, mapping);
        return base.indexOf('*') < 0 && (prefix.equals(base) || prefix.startsWith(base + "/"));
    }

    /** An exact servlet mapping ("/checkout"), as opposed to a prefix, extension or default one. */
    private static boolean isExact(String mapping) {
        return mapping.startsWith("/") && !mapping.endsWith("/*") && !mapping.equals("/");
    }

    /** The path prefix below which a wildcard mapping's requests lie (the context path for "/", "/*" and "*.ext"). */
    private static String prefixOf(String contextPath, String mapping) {
        if (mapping.endsWith("/*")) return contextPath + mapping.substring(0, mapping.length() - 2);
        return contextPath;
    }
}
