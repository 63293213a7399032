package dev.idempotency.e2e;

/** Payara Server 6 (Jakarta EE 10, jakarta; Felix OSGi), the servlet suite's payments WAR, embedded H2. */
class Payara6IT extends PaymentsScenarios {
    @Override
    protected ServerProcess server() throws Exception {
        return PayaraServer.payara6();
    }

    @Override
    protected boolean containerRefusesNonAsciiHeaderValues() {
        return true;
    }
}
