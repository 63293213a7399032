package dev.idempotency.agent.core.servlet;

import java.util.Arrays;
import java.util.Collections;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

/**
 * Filters that are the application itself rather than a step before it: frameworks that serve requests from a filter
 * and never reach a servlet. A keyed request is decided on entry to them, like on entry to a servlet. Matched by the
 * filter's class or any superclass.
 */
final class ApplicationFilters {
    static final List<String> BUILT_IN = Collections.unmodifiableList(Arrays.asList(
            "org.apache.struts2.dispatcher.filter.StrutsPrepareAndExecuteFilter",
            "org.apache.struts2.dispatcher.filter.StrutsExecuteFilter",
            "org.apache.struts2.dispatcher.ng.filter.StrutsPrepareAndExecuteFilter",
            "org.apache.struts2.dispatcher.ng.filter.StrutsExecuteFilter",
            "org.apache.struts2.dispatcher.FilterDispatcher",
            "org.apache.wicket.protocol.http.WicketFilter",
            "org.apache.tapestry5.TapestryFilter",
            "org.glassfish.jersey.servlet.ServletContainer",
            "org.jboss.resteasy.plugins.server.servlet.FilterDispatcher",
            // TomEE serves its JAX-RS applications (CXF) from this filter, never reaching a servlet
            "org.apache.tomee.webservices.CXFJAXRSFilter"));

    private final ClassValue<Boolean> byClass;

    ApplicationFilters(List<String> configured) {
        Set<String> names = new HashSet<>(BUILT_IN);
        names.addAll(configured);
        byClass = new ComponentsNamed(names.toArray(new String[0]));
    }

    boolean contains(Class<?> filterClass) {
        return byClass.get(filterClass);
    }
}
