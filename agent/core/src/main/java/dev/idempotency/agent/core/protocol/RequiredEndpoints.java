package dev.idempotency.agent.core.protocol;

import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import java.util.regex.Pattern;

/**
 * Where a key is required: request-path patterns ({@code /shop/payments/**}, seen by every transport) and JAX-RS
 * route templates ({@code POST /orders/{id}/payments}, the resource method's HTTP method and its path template
 * relative to the application, seen by the JAX-RS layer).
 */
public final class RequiredEndpoints {
    private static final Pattern ROUTE = Pattern.compile("[A-Z]+ /\\S*");

    private final PathPatterns paths;
    private final Set<String> routes;

    private RequiredEndpoints(PathPatterns paths, Set<String> routes) {
        this.paths = paths;
        this.routes = routes;
    }

    /** Parses a comma-separated list of path patterns and route templates; null when an entry is neither. */
    public static RequiredEndpoints parse(String list) {
        List<String> pathEntries = new ArrayList<>();
        Set<String> routes = new LinkedHashSet<>();
        for (String raw : list.split(",")) {
            String entry = raw.trim().replaceAll("\\s+", " ");
            if (entry.isEmpty()) continue;
            if (ROUTE.matcher(entry).matches()) routes.add(RouteTemplates.normalise(entry));
            else pathEntries.add(entry);
        }
        PathPatterns paths = PathPatterns.parse(String.join(",", pathEntries));
        return paths == null ? null : new RequiredEndpoints(paths, Collections.unmodifiableSet(routes));
    }

    public PathPatterns paths() { return paths; }

    /** The JAX-RS routes, normalised ("POST /orders/{id}/payments"), in the order given. */
    public Set<String> routes() { return routes; }

    public boolean requiresRoute(String route) {
        return route != null && routes.contains(route);
    }

    public boolean isEmpty() {
        return paths.isEmpty() && routes.isEmpty();
    }

    @Override
    public String toString() {
        List<String> all = new ArrayList<>();
        if (!paths.isEmpty()) all.add(paths.toString());
        all.addAll(routes);
        return all.isEmpty() ? "(none)" : String.join(",", all);
    }
}
