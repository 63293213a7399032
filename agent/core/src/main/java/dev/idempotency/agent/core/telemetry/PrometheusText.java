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
        sample(out, name + "_count", null, recorder.count());
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
