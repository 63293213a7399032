package dev.idempotency.e2e;

/** Tomcat 9 (javax) on the Temurin 25 JDK, the embedded H2 default store. */
class Tomcat9Jdk25IT extends PaymentsScenarios {
    @Override
    protected ServerProcess server() throws Exception {
        return TomcatServer.tomcat9().javaHome(E2eEnvironment.jdk25());
    }
}
