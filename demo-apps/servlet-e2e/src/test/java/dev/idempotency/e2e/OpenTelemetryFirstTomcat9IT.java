package dev.idempotency.e2e;

import dev.idempotency.e2e.scenarios.OpenTelemetryScenarios;

/** Tomcat 9, H2 store, with -javaagent:opentelemetry-javaagent.jar BEFORE our -javaagent. */
public class OpenTelemetryFirstTomcat9IT extends OpenTelemetryScenarios {
    @Override
    protected boolean openTelemetryFirst() {
        return true;
    }
}
