package dev.idempotency.agent.core.telemetry;

import java.util.Locale;

/** The figures in the Prometheus text exposition format (version 0.0.4), names per Prometheus conventions. */
final class PrometheusText {
    static final String CONTENT_TYPE = "text/plain; version=0.0.4; charset=utf-8";

    private PrometheusText() {
    }

    static String render(AgentMetrics m) {
        StringBuilder out = new StringBuilder(4096);
        header(out, "idempotency_requests_total", "counter", "Keyed requests by what the agent did with them.");
        for (Outcome o : Outcome.values()) sample(out, "idempotency_requests_total", "outcome=\"" + o.label() + "\"", m.outcome(o));
        header(out, "idempotency_completions_total", "counter", "Executed keyed requests by how their reservation ended.");
        for (AgentMetrics.Completion c : AgentMetrics.Completion.values()) {
            sample(out, "idempotency_completions_total", "result=\"" + c.name().toLowerCase(Locale.ROOT) + "\"", m.completions(c));
        }
        histogram(out, "idempotency_store_reserve_duration_seconds", "Time to reserve a key in the store.", m.reserveLatency());
        histogram(out, "idempotency_store_complete_duration_seconds", "Time to record a response in the store.", m.completeLatency());
        header(out, "idempotency_keys_in_flight", "gauge", "Keys held by requests running in this JVM.");
        sample(out, "idempotency_keys_in_flight", null, m.keysInFlight());
        header(out, "idempotency_requests_waiting", "gauge", "Duplicates waiting for the request that holds their key (on-in-flight=wait).");
        sample(out, "idempotency_requests_waiting", null, m.waitingForHolder());
        header(out, "idempotency_store_connections_in_use", "gauge", "Connections of the store's request pool lent out now.");
        sample(out, "idempotency_store_connections_in_use", null, m.storeConnectionsInUse());
        header(out, "idempotency_memory_held_bytes", "gauge", "Bytes of request bodies and responses the agent holds now.");
        sample(out, "idempotency_memory_held_bytes", null, m.memoryHeld());
        header(out, "idempotency_memory_budget_bytes", "gauge", "The most the agent may hold (idempotency.memory-budget).");
        sample(out, "idempotency_memory_budget_bytes", null, m.memoryBudget());
        header(out, "idempotency_heartbeat_failures_total", "counter", "Lease renewal rounds that failed.");
        sample(out, "idempotency_heartbeat_failures_total", null, m.heartbeatFailures());
        header(out, "idempotency_leases_expired_total", "counter",
                "Keys whose lease ran out without a result, found by this JVM's sweeps.");
        sample(out, "idempotency_leases_expired_total", null, m.leasesExpired());
        header(out, "idempotency_store_up", "gauge", "1 when the last store interaction reached the store, else 0.");
        sample(out, "idempotency_store_up", null, m.storeUp() ? 1 : 0);
        endpoints(out, m.endpoints());
        return out.toString();
    }

    /**
     * The endpoint inventory: labels are the application, the method and the mapping or route template (never a raw
     * path), at most {@code idempotency.endpoints.max} endpoints and one overflow bucket.
     */
    private static void endpoints(StringBuilder out, EndpointInventory inventory) {
        java.util.List<EndpointRow> rows = inventory.rows();
        header(out, "idempotency_endpoint_requests_total", "counter",
                "Requests of a handled method per endpoint, with and without a key.");
        for (EndpointRow r : rows) {
            sample(out, "idempotency_endpoint_requests_total", labels(r) + ",key=\"present\"", r.keyed);
            sample(out, "idempotency_endpoint_requests_total", labels(r) + ",key=\"absent\"", r.unkeyed);
        }
        header(out, "idempotency_endpoint_answers_total", "counter",
                "Per endpoint: replays, 409s (a key in flight or of unknown outcome), 422s (a key reused), 400s (no key"
                        + " where required).");
        for (EndpointRow r : rows) {
            sample(out, "idempotency_endpoint_answers_total", labels(r) + ",answer=\"replayed\"", r.replayed);
            sample(out, "idempotency_endpoint_answers_total", labels(r) + ",answer=\"conflict\"", r.conflicts);
            sample(out, "idempotency_endpoint_answers_total", labels(r) + ",answer=\"key_reused\"", r.mismatches);
            sample(out, "idempotency_endpoint_answers_total", labels(r) + ",answer=\"key_missing\"", r.keyMissing);
        }
        header(out, "idempotency_endpoint_required", "gauge",
                "1 when idempotency.required enforces a key at the endpoint (0.5: for some of its paths), else 0.");
        for (EndpointRow r : rows) {
            out.append("idempotency_endpoint_required{").append(labels(r)).append("} ")
                    .append("path".equals(r.required) || "route".equals(r.required) ? "1"
                            : "partly".equals(r.required) ? "0.5" : "0")
                    .append('\n');
        }
        header(out, "idempotency_endpoint_last_seen_seconds", "gauge",
                "When the endpoint last served a handled request (Unix time; 0: never).");
        for (EndpointRow r : rows) {
            sample(out, "idempotency_endpoint_last_seen_seconds", labels(r), r.lastSeen / 1000);
        }
        header(out, "idempotency_endpoint_first_seen_seconds", "gauge",
                "When the endpoint first served a handled request (Unix time; 0: never).");
        for (EndpointRow r : rows) {
            sample(out, "idempotency_endpoint_first_seen_seconds", labels(r), r.firstSeen / 1000);
        }
        header(out, "idempotency_required_unmatched", "gauge",
                "An entry of idempotency.required that matches no endpoint: it protects nothing (a typo?).");
        for (String entry : inventory.unmatchedRequired()) {
            sample(out, "idempotency_required_unmatched", "entry=\"" + escape(entry) + "\"", 1);
        }
        header(out, "idempotency_endpoint_bookkeeping_failures_total", "counter",
                "Faults in counting endpoints, swallowed (the requests were not affected).");
        sample(out, "idempotency_endpoint_bookkeeping_failures_total", null, inventory.failures());
    }

    private static String labels(EndpointRow r) {
        return "application=\"" + escape(r.application) + "\",method=\"" + escape(r.method) + "\",endpoint=\""
                + escape(r.endpoint) + "\",kind=\"" + r.kind + "\"";
    }

    /** A label value per the exposition format: backslash, double quote and line feed escaped. */
    static String escape(String value) {
        StringBuilder out = new StringBuilder(value.length() + 8);
        for (int i = 0; i < value.length(); i++) {
            char c = value.charAt(i);
            if (c == '\\') out.append("\\\\");
            else if (c == '"') out.append("\\\"");
            else if (c == '\n') out.append("\\n");
            else out.append(c);
        }
        return out.toString();
    }

    private static void histogram(StringBuilder out, String name, String help, LatencyRecorder recorder) {
        header(out, name, "histogram", help);
        long[] cumulative = recorder.cumulativeBuckets();
        for (int i = 0; i < LatencyRecorder.BOUNDS.length; i++) {
            sample(out, name + "_bucket", "le=\"" + java.math.BigDecimal.valueOf(LatencyRecorder.BOUNDS[i]).toPlainString() + "\"", cumulative[i]);
        }
        sample(out, name + "_bucket", "le=\"+Inf\"", cumulative[cumulative.length - 1]);
        out.append(name).append("_sum ").append(recorder.sumSeconds()).append('\n');
        // The same read as +Inf: samples recorded meanwhile must not make the count differ from it.
        sample(out, name + "_count", null, cumulative[cumulative.length - 1]);
    }

    private static void header(StringBuilder out, String name, String type, String help) {
        out.append("# HELP ").append(name).append(' ').append(help).append('\n');
        out.append("# TYPE ").append(name).append(' ').append(type).append('\n');
    }

    private static void sample(StringBuilder out, String name, String labels, long value) {
        out.append(name);
        if (labels != null) out.append('{').append(labels).append('}');
        out.append(' ').append(value).append('\n');
    }
}
