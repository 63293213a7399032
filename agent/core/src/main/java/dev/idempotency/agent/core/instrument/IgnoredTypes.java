package dev.idempotency.agent.core.instrument;

/** Types the agent never instruments, recognised by name alone where possible (without reading the type). */
public final class IgnoredTypes {
    private static final String[] PREFIXES = {
        "net.bytebuddy.", "java.", "sun.", "jdk.", "com.sun.", "dev.idempotency.agent.",
        // other agents' own classes: never servlets, and some cannot even be described
        "io.opentelemetry.javaagent.", "io.opentelemetry.instrumentation.", "co.elastic.apm.agent.", "com.newrelic.", "datadog."};

    private IgnoredTypes() {
    }

    public static boolean byName(String name) {
        for (String prefix : PREFIXES) if (name.startsWith(prefix)) return true;
        return false;
    }
}
