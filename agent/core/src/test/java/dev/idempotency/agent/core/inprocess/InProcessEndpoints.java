package dev.idempotency.agent.core.inprocess;

import dev.idempotency.store.testing.Await;

import javax.management.MBeanServer;
import javax.management.ObjectName;
import java.lang.management.ManagementFactory;
import java.time.Duration;
import java.util.Arrays;
import java.util.List;

/** The endpoint inventory as the agent in this JVM publishes it on its MBean. */
final class InProcessEndpoints {
    private static final String OBJECT_NAME = "dev.idempotency:type=Agent";

    private InProcessEndpoints() {
    }

    /** keyed, unkeyed, replayed, 409s, 422s, 400s summed over the endpoints of one application and method. */
    static long[] totals(String application, String method) throws Exception {
        long[] sums = new long[6];
        for (String row : rows()) {
            String[] r = row.split("\t", -1);
            if (!r[0].equals(application) || !r[1].equals(method)) continue;
            for (int i = 0; i < 6; i++) sums[i] += Long.parseLong(r[5 + i]);
        }
        return sums;
    }

    static List<String> rows() throws Exception {
        MBeanServer server = ManagementFactory.getPlatformMBeanServer();
        ObjectName name = new ObjectName(OBJECT_NAME);
        Await.until("the agent's MBean", Duration.ofSeconds(10), () -> server.isRegistered(name), registered -> registered);
        return Arrays.asList((String[]) server.getAttribute(name, "Endpoints"));
    }

    /** Faults the agent swallowed while counting endpoints: none, or a request went uncounted. */
    static long failures() throws Exception {
        rows();
        return (Long) ManagementFactory.getPlatformMBeanServer().getAttribute(new ObjectName(OBJECT_NAME),
                "EndpointBookkeepingFailures");
    }

    static List<String> requiredUnmatched() throws Exception {
        rows();
        return Arrays.asList((String[]) ManagementFactory.getPlatformMBeanServer().getAttribute(new ObjectName(OBJECT_NAME),
                "RequiredUnmatched"));
    }
}
