package dev.idempotency.e2e;

/** Tomcat 9, H2 store, with -javaagent:opentelemetry-javaagent.jar BEFORE our -javaagent. */
class OpenTelemetryFirstTomcat9IT extends OpenTelemetryScenarios {
    @Override
    protected boolean openTelemetryFirst() {
        return true;
    }
}
