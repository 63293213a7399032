package dev.idempotency.agent.core.telemetry;

import dev.idempotency.agent.core.protocol.PathPatterns;
import dev.idempotency.agent.core.protocol.RequiredEndpoints;

import java.util.ArrayList;
import java.util.Collection;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.LongAdder;
import java.util.function.Supplier;

/**
 * The state-changing endpoints of every web application, as the agent sees them: a servlet by its mappings (read from
 * the container's registrations when the application serves its first request), a JAX-RS resource method by its
 * route template. Per endpoint (application, HTTP method, mapping or template, never a raw path): requests with and
 * without a key, replays, 409s, 422s, 400s for a missing key, first and last seen, and whether {@code required}
 * enforces a key there. Bounded: at most {@code maxPerApplication} endpoints per application and {@code max} in all;
 * beyond, requests count in one overflow bucket. It holds strings and counters only, never an application's class or
 * object, so an undeployed application is never pinned.
 *
 * <p>Counting a request costs two hash lookups by strings the container already holds and a {@link LongAdder} add.
 * Any fault in this bookkeeping is counted ({@link #failures()}) and never reaches the request.
 */
public final class EndpointInventory {
    /** The application, method and label of the overflow bucket. */
    public static final String OVERFLOW = "(overflow)";
    /** The method shown for a mapping declared by the container that no handled request has reached yet. */
    public static final String ANY_METHOD = "-";
    /** How an application filter is named among servlets: "filter " and its class name. */
    public static final String FILTER = "filter ";

    private final RequiredEndpoints required;
    private final int maxPerApplication;
    private final int max;
    private final ConcurrentHashMap<String, Application> applications = new ConcurrentHashMap<>();
    private final AtomicInteger endpoints = new AtomicInteger();
    private final Endpoint overflow;
    private final LongAdder failures = new LongAdder();
    /** Routes ("POST /orders/{id}") the JAX-RS applications declare, before any request reaches them. */
    private final Set<String> declaredRoutes = ConcurrentHashMap.newKeySet();
    private volatile Runnable onNewApplication = () -> { };
    /** Some JAX-RS application has routes known only once requested (it scans, or is a ResourceConfig). */
    private volatile boolean undeclaredRoutes;

    public EndpointInventory(RequiredEndpoints required, int maxPerApplication, int max) {
        this.required = required;
        this.maxPerApplication = maxPerApplication;
        this.max = max;
        this.overflow = new Endpoint(OVERFLOW, OVERFLOW, OVERFLOW, "-", Collections.<String>emptyList(), null, "no");
    }

    /** Called (on the request's thread, once) when an application is seen for the first time or declares routes. */
    public void onNewApplication(Runnable action) {
        onNewApplication = action;
    }

    /** A mapping of a servlet, as the container registered it. */
    public static final class Mapping {
        final String servlet;
        final List<String> patterns;
        /** False for the container's own servlets and JAX-RS runtimes' (their requests are counted elsewhere). */
        final boolean listed;
        /**
         * Whether {@code required} may match its paths: an application's servlet or a JAX-RS runtime's, not the
         * container's default servlet (which would match every path of the application, typos included).
         */
        final boolean audited;

        public Mapping(String servlet, Collection<String> patterns, boolean listed) {
            this(servlet, patterns, listed, listed);
        }

        public Mapping(String servlet, Collection<String> patterns, boolean listed, boolean audited) {
            this.audited = audited;
            this.servlet = servlet;
            List<String> sorted = new ArrayList<>(patterns);
            Collections.sort(sorted);
            this.patterns = Collections.unmodifiableList(sorted);
            this.listed = listed;
        }
    }

    /** One web application, by its context path ("" for the root). */
    public final class Application {
        final String name;
        final String contextPath;
        /** method, then servlet name or route template, to the endpoint. */
        private final ConcurrentHashMap<String, ConcurrentHashMap<String, Endpoint>> byMethod =
                new ConcurrentHashMap<>(4);
        private final AtomicInteger count = new AtomicInteger();
        final Map<String, Mapping> servlets = new ConcurrentHashMap<>();

        Application(String contextPath) {
            this.contextPath = contextPath;
            this.name = contextPath.isEmpty() ? "/" : contextPath;
        }

        /** The endpoint of a servlet, by its name, for requests with this method. */
        public Endpoint servlet(String method, String servletName) {
            Endpoint e = existing(method, servletName);
            return e != null ? e : create(method, servletName, null, null);
        }

        /** The endpoint of a servlet (by name) or route template, if it was made; null otherwise. */
        public Endpoint existing(String method, String key) {
            Map<String, Endpoint> endpoints = byMethod.get(method);
            return endpoints == null ? null : endpoints.get(key);
        }

        /** Whether the container's registrations named this servlet. */
        public boolean knows(String servletName) {
            return servlets.containsKey(servletName);
        }

        /**
         * Registrations read again (a servlet added after the first read, or a second web application under the same
         * context path: another virtual host, another server in the JVM): the servlets not known yet are added.
         */
        public void learn(Collection<Mapping> mappings) {
            for (Mapping m : mappings) servlets.putIfAbsent(m.servlet, m);
        }

        /** The endpoint of a JAX-RS route ("POST /orders/{id}"); {@code samplePath} is the first request's path. */
        public Endpoint route(String route, String samplePath) {
            int space = route.indexOf(' ');
            String method = route.substring(0, space);
            String template = route.substring(space + 1);
            Map<String, Endpoint> endpoints = byMethod.get(method);
            Endpoint e = endpoints == null ? null : endpoints.get(template);
            return e != null ? e : create(method, template, route, samplePath);
        }

        private Endpoint create(String method, String key, String route, String samplePath) {
            synchronized (this) {
                ConcurrentHashMap<String, Endpoint> endpoints = byMethod.get(method);
                Endpoint e = endpoints == null ? null : endpoints.get(key);
                if (e != null) return e;
                if (count.get() >= maxPerApplication || EndpointInventory.this.endpoints.get() >= max) return overflow;
                if (endpoints == null) {
                    endpoints = new ConcurrentHashMap<>(8);
                    byMethod.put(method.intern(), endpoints);
                }
                if (route != null) {
                    e = new Endpoint(name, method, key, "jaxrs", Collections.singletonList(samplePath), route,
                            requiredForRoute(route, samplePath));
                } else {
                    Mapping mapping = servlets.get(key);
                    List<String> patterns = mapping != null ? mapping.patterns : Collections.<String>emptyList();
                    boolean filter = key.startsWith(FILTER);
                    String label = !patterns.isEmpty() ? String.join(",", patterns) : filter ? key : "servlet " + key;
                    e = new Endpoint(name, method, label, filter ? "filter" : "servlet", patterns, null,
                            MappingCoverage.of(required.paths(), contextPath, patterns));
                }
                endpoints.put(key.intern(), e);
                count.incrementAndGet();
                EndpointInventory.this.endpoints.incrementAndGet();
                return e;
            }
        }
    }

    /** One endpoint's figures. Counting never allocates. */
    public static final class Endpoint {
        final String application;
        final String method;
        final String label;
        final String kind;
        /** Servlet mappings, or a JAX-RS route's first request's path: what {@code required} is matched against. */
        final List<String> samples;
        final String route;
        final String required;
        final LongAdder keyed = new LongAdder();
        final LongAdder unkeyed = new LongAdder();
        final LongAdder replayed = new LongAdder();
        final LongAdder conflicts = new LongAdder();
        final LongAdder mismatches = new LongAdder();
        final LongAdder keyMissing = new LongAdder();
        volatile long firstSeen;
        volatile long lastSeen;

        Endpoint(String application, String method, String label, String kind, List<String> samples, String route,
                 String required) {
            this.application = application;
            this.method = method;
            this.label = label;
            this.kind = kind;
            this.samples = samples;
            this.route = route;
            this.required = required;
        }

        /** A request without a key (whether or not {@code required} then refuses it). */
        public void unkeyed() {
            unkeyed.increment();
            seen();
        }

        /** A request without a key refused with 400 {@code key-missing}: {@code required} enforced a key here. */
        public void keyMissing() {
            keyMissing.increment();
        }

        /** A request with a key, and what the agent did with it. */
        public void keyed(Outcome outcome) {
            keyed.increment();
            if (outcome == Outcome.REPLAYED) replayed.increment();
            else if (outcome == Outcome.IN_FLIGHT || outcome == Outcome.UNKNOWN || outcome == Outcome.NOT_KEPT) {
                conflicts.increment();
            }
            else if (outcome == Outcome.MISMATCH) mismatches.increment();
            seen();
        }

        private void seen() {
            long now = System.currentTimeMillis();
            if (firstSeen == 0) firstSeen = now;
            if (now - lastSeen >= 1000) lastSeen = now; // one write a second at most: no contended line per request
        }
    }

    /** The application of this context path if it was seen, else null ({@link #register} makes it). */
    public Application application(String contextPath) {
        return applications.get(contextPath);
    }

    /**
     * The application of this context path, made on its first sight from the container's registrations, read once
     * from {@code registrations} (may be null; a failure leaves it without declared mappings). Null beyond the cap.
     */
    public Application register(String contextPath, Supplier<Collection<Mapping>> registrations) {
        Application app;
        synchronized (applications) {
            app = applications.get(contextPath);
            if (app != null) return app;
            if (applications.size() >= max) return null;
            app = new Application(contextPath);
            try {
                Collection<Mapping> mappings = registrations == null ? null : registrations.get();
                if (mappings != null) for (Mapping m : mappings) app.servlets.put(m.servlet, m);
            } catch (RuntimeException | LinkageError e) {
                failed();
            }
            applications.put(contextPath, app);
        }
        runOnNewApplication();
        return app;
    }

    /** The endpoints' share of the overflow: for requests of an application beyond the cap. */
    public Endpoint overflow() {
        return overflow;
    }

    /** JAX-RS routes an application declares ({@code Application.getClasses()}), normalised. */
    public void declareRoutes(Collection<String> routes) {
        if (declaredRoutes.addAll(routes)) runOnNewApplication();
    }

    /** A JAX-RS application started without listing its resource classes: its routes appear as they are requested. */
    public void routesUndeclared() {
        undeclaredRoutes = true;
    }

    /** Whether some JAX-RS application's routes are known only once requested. */
    public boolean someRoutesUndeclared() {
        return undeclaredRoutes;
    }

    private void runOnNewApplication() {
        try {
            onNewApplication.run();
        } catch (RuntimeException e) {
            failed();
        }
    }

    /** A fault in the bookkeeping, swallowed where it happened. */
    public void failed() {
        failures.increment();
    }

    public long failures() {
        return failures.sum();
    }

    public int maxPerApplication() {
        return maxPerApplication;
    }

    public int max() {
        return max;
    }

    private String requiredForRoute(String route, String samplePath) {
        if (required.requiresRoute(route)) return "route";
        return samplePath != null && required.paths().matches(samplePath) ? "path" : "no";
    }

    /**
     * Every endpoint that has served a handled request, then every mapping and declared route that has not (method
     * {@value #ANY_METHOD}), then the overflow bucket when it was used; sorted by application, endpoint and method.
     */
    public List<EndpointRow> rows() {
        List<EndpointRow> rows = new ArrayList<>();
        Set<String> requested = new java.util.HashSet<>();
        for (Application app : applications.values()) {
            for (Map<String, Endpoint> endpoints : app.byMethod.values()) {
                for (Endpoint e : endpoints.values()) {
                    rows.add(new EndpointRow(e));
                    requested.add(app.name + " " + e.label);
                    if (e.route != null) requested.add(e.route);
                }
            }
        }
        for (Application app : applications.values()) {
            for (Mapping m : app.servlets.values()) {
                String label = m.patterns.isEmpty() ? "servlet " + m.servlet : String.join(",", m.patterns);
                if (!m.listed || requested.contains(app.name + " " + label)) continue;
                String required = MappingCoverage.of(this.required.paths(), app.contextPath, m.patterns);
                rows.add(new EndpointRow(app.name, ANY_METHOD, label, "servlet", required));
            }
        }
        for (String route : declaredRoutes) {
            if (requested.contains(route)) continue;
            int space = route.indexOf(' ');
            rows.add(new EndpointRow("-", route.substring(0, space), route.substring(space + 1), "jaxrs",
                    required.requiresRoute(route) ? "route" : "no"));
        }
        Collections.sort(rows, (a, b) -> {
            int c = a.application.compareTo(b.application);
            if (c == 0) c = a.endpoint.compareTo(b.endpoint);
            return c != 0 ? c : a.method.compareTo(b.method);
        });
        if (overflow.keyed.sum() + overflow.unkeyed.sum() > 0) rows.add(new EndpointRow(overflow));
        return rows;
    }

    /**
     * The entries of {@code required} that match no endpoint known now: a path pattern that matches no servlet
     * mapping and no path a JAX-RS route was requested on, a route that no JAX-RS application declares or served. Each
     * is a likely typo that protects nothing.
     */
    public List<String> unmatchedRequired() {
        List<String> unmatched = new ArrayList<>();
        PathPatterns paths = required.paths();
        for (int i = 0; i < paths.sources().size(); i++) {
            if (!pathPatternMatchesAny(paths, i)) unmatched.add(paths.sources().get(i));
        }
        for (String route : required.routes()) {
            if (!declaredRoutes.contains(route) && !routeServed(route)) unmatched.add(route);
        }
        return unmatched;
    }

    private boolean pathPatternMatchesAny(PathPatterns paths, int i) {
        for (Application app : applications.values()) {
            for (Mapping m : app.servlets.values()) {
                if (!m.audited) continue;
                for (String mapping : m.patterns) if (MappingCoverage.mayMatch(paths, i, app.contextPath, mapping)) return true;
            }
            for (Map<String, Endpoint> endpoints : app.byMethod.values()) {
                for (Endpoint e : endpoints.values()) {
                    if (e.route != null) {
                        for (String sample : e.samples) if (sample != null && paths.matches(i, sample)) return true;
                    } else {
                        for (String mapping : e.samples) if (MappingCoverage.mayMatch(paths, i, app.contextPath, mapping)) return true;
                    }
                }
            }
        }
        return false;
    }

    private boolean routeServed(String route) {
        for (Application app : applications.values()) {
            for (Map<String, Endpoint> endpoints : app.byMethod.values()) {
                for (Endpoint e : endpoints.values()) if (route.equals(e.route)) return true;
            }
        }
        return false;
    }
}
