package dev.idempotency.agent.core.gate;

/**
 * Request attributes (JAX-RS properties, which servlet-hosted JAX-RS runtimes keep as servlet request attributes) by
 * which the layers of one request see each other: the servlet layer marks the requests it handles, so that JAX-RS
 * resources behind it never reserve a key a second time.
 */
public final class ExchangeAttributes {
    /** Set on a request whose key (or missing key) an outer layer already handled. */
    public static final String HANDLED = "dev.idempotency.agent.handled";
    /** The matched JAX-RS route of a request, for the servlet layer's log lines. */
    public static final String ROUTE = "dev.idempotency.agent.route";
    /**
     * Set by the JAX-RS layer on a request served by a suspended ({@code @Suspended AsyncResponse}) resource: a server
     * error then may be the runtime's timeout while the resource's work still runs.
     */
    public static final String ASYNC_RESOURCE = "dev.idempotency.agent.async-resource";

    private ExchangeAttributes() {
    }
}
