package dev.idempotency.e2e;

import dev.idempotency.e2e.scenarios.OpenTelemetryScenarios;

/** Tomcat 9, H2 store, with -javaagent:opentelemetry-javaagent.jar AFTER our -javaagent. */
public class OpenTelemetrySecondTomcat9IT extends OpenTelemetryScenarios {
    @Override
    protected boolean openTelemetryFirst() {
        return false;
    }
}
