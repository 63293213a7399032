package dev.idempotency.agent.core.telemetry;

import javax.management.Attribute;
import javax.management.AttributeList;
import javax.management.AttributeNotFoundException;
import javax.management.DynamicMBean;
import javax.management.MBeanAttributeInfo;
import javax.management.MBeanException;
import javax.management.MBeanInfo;
import javax.management.MBeanOperationInfo;
import javax.management.MBeanParameterInfo;
import javax.management.ReflectionException;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.function.Supplier;

/**
 * {@code dev.idempotency:type=Agent}: the figures as read-only attributes, and two operations (purge now, sweep now).
 * A dynamic MBean, so that attributes follow the outcome list without one getter each.
 */
final class AgentMBean implements DynamicMBean {
    /** What JMX operations act on: the store's housekeeping, run now. */
    interface Housekeeping {
        int purgeNow();

        int sweepNow();
    }

    private final Map<String, Attr> attributes = new LinkedHashMap<>();
    private final Housekeeping housekeeping;

    private static final class Attr {
        final String type;
        final String description;
        final Supplier<Object> value;

        Attr(String type, String description, Supplier<Object> value) {
            this.type = type;
            this.description = description;
            this.value = value;
        }
    }

    AgentMBean(AgentMetrics metrics, Housekeeping housekeeping) {
        this.housekeeping = housekeeping;
        for (Outcome o : Outcome.values()) {
            add("Requests" + camel(o.label()), "long", "keyed requests with outcome " + o.label(), () -> metrics.outcome(o));
        }
        for (AgentMetrics.Completion c : AgentMetrics.Completion.values()) {
            add("Completions" + camel(c.name().toLowerCase(java.util.Locale.ROOT)), "long",
                    "executed requests whose reservation ended " + c.name().toLowerCase(java.util.Locale.ROOT), () -> metrics.completions(c));
        }
        add("ReserveP50Millis", "double", "store reserve latency, median of the last 1024", () -> metrics.reserveLatency().recentQuantileMillis(0.5));
        add("ReserveP99Millis", "double", "store reserve latency, 99th percentile of the last 1024", () -> metrics.reserveLatency().recentQuantileMillis(0.99));
        add("CompleteP50Millis", "double", "store complete latency, median of the last 1024", () -> metrics.completeLatency().recentQuantileMillis(0.5));
        add("CompleteP99Millis", "double", "store complete latency, 99th percentile of the last 1024", () -> metrics.completeLatency().recentQuantileMillis(0.99));
        add("KeysInFlight", "int", "keys held by requests running in this JVM", metrics::keysInFlight);
        add("RequestsWaiting", "int", "duplicates waiting for the request that holds their key", metrics::waitingForHolder);
        add("StoreConnectionsInUse", "int", "connections of the store's request pool lent out now", metrics::storeConnectionsInUse);
        add("MemoryHeldBytes", "long", "bytes of request bodies and responses the agent holds now", metrics::memoryHeld);
        add("MemoryBudgetBytes", "long", "the most the agent may hold (idempotency.memory-budget)", metrics::memoryBudget);
        add("HeartbeatFailures", "long", "lease renewal rounds that failed", metrics::heartbeatFailures);
        add("LeasesExpired", "long", "keys whose lease ran out without a result, found by this JVM's sweeps",
                metrics::leasesExpired);
        add("StoreUp", "boolean", "whether the last store interaction reached the store", metrics::storeUp);
        add("EndpointColumns", "[Ljava.lang.String;", "the columns of Endpoints",
                () -> EndpointRow.COLUMNS.toArray(new String[0]));
        add("Endpoints", "[Ljava.lang.String;", "the state-changing endpoints seen, one tab-separated row each (see"
                + " EndpointColumns)", () -> endpointRows(metrics.endpoints()));
        add("RequiredUnmatched", "[Ljava.lang.String;", "entries of idempotency.required that match no endpoint",
                () -> metrics.endpoints().unmatchedRequired().toArray(new String[0]));
        add("EndpointsMax", "int", "the most endpoints kept (idempotency.endpoints.max)",
                () -> metrics.endpoints().max());
        add("EndpointsMaxPerApplication", "int", "the most endpoints kept per application",
                () -> metrics.endpoints().maxPerApplication());
        add("EndpointBookkeepingFailures", "long", "faults in counting endpoints, swallowed",
                () -> metrics.endpoints().failures());
    }

    private static String[] endpointRows(EndpointInventory inventory) {
        java.util.List<EndpointRow> rows = inventory.rows();
        String[] tsv = new String[rows.size()];
        for (int i = 0; i < tsv.length; i++) tsv[i] = rows.get(i).tsv();
        return tsv;
    }

    private void add(String name, String type, String description, Supplier<Object> value) {
        attributes.put(name, new Attr(type, description, value));
    }

    private static String camel(String label) {
        StringBuilder out = new StringBuilder();
        for (String part : label.split("_")) out.append(Character.toUpperCase(part.charAt(0))).append(part.substring(1));
        return out.toString();
    }

    @Override
    public Object getAttribute(String name) throws AttributeNotFoundException {
        Attr a = attributes.get(name);
        if (a == null) throw new AttributeNotFoundException(name);
        return a.value.get();
    }

    @Override
    public AttributeList getAttributes(String[] names) {
        AttributeList list = new AttributeList();
        for (String name : names) {
            Attr a = attributes.get(name);
            if (a != null) list.add(new Attribute(name, a.value.get()));
        }
        return list;
    }

    @Override
    public void setAttribute(Attribute attribute) throws AttributeNotFoundException {
        throw new AttributeNotFoundException(attribute.getName() + " is read-only");
    }

    @Override
    public AttributeList setAttributes(AttributeList attributes) {
        return new AttributeList();
    }

    @Override
    public Object invoke(String operation, Object[] params, String[] signature) throws MBeanException, ReflectionException {
        try {
            if ("purgeNow".equals(operation)) return housekeeping.purgeNow();
            if ("sweepNow".equals(operation)) return housekeeping.sweepNow();
        } catch (RuntimeException e) {
            // the store's own message, without its classes (a JMX client could not load them)
            throw new MBeanException(new Exception(e.getMessage()), operation + " failed");
        }
        throw new ReflectionException(new NoSuchMethodException(operation));
    }

    @Override
    public MBeanInfo getMBeanInfo() {
        MBeanAttributeInfo[] infos = new MBeanAttributeInfo[attributes.size()];
        int i = 0;
        for (Map.Entry<String, Attr> e : attributes.entrySet()) {
            infos[i++] = new MBeanAttributeInfo(e.getKey(), e.getValue().type, e.getValue().description, true, false, false);
        }
        MBeanOperationInfo[] operations = {
            new MBeanOperationInfo("purgeNow", "delete expired keys now; returns how many", new MBeanParameterInfo[0], "int", MBeanOperationInfo.ACTION),
            new MBeanOperationInfo("sweepNow", "apply the expired-lease policy now; returns how many keys changed", new MBeanParameterInfo[0], "int", MBeanOperationInfo.ACTION)
        };
        return new MBeanInfo(getClass().getName(), "Idempotency agent", infos, null, operations, null);
    }
}
