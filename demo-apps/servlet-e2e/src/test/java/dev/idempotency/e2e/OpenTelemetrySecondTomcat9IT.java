package dev.idempotency.e2e;

/** Tomcat 9, H2 store, with -javaagent:opentelemetry-javaagent.jar AFTER our -javaagent. */
class OpenTelemetrySecondTomcat9IT extends OpenTelemetryScenarios {
    @Override
    protected boolean openTelemetryFirst() {
        return false;
    }
}
