package dev.idempotency.e2e;

/** Tomcat 9 (javax) on OpenJDK 11, the embedded H2 default store. */
class Tomcat9Jdk11IT extends PaymentsScenarios {
    @Override
    protected ServerProcess server() throws Exception {
        return TomcatServer.tomcat9().javaHome(E2eEnvironment.jdk11());
    }

    @org.junit.jupiter.api.Test
    void theServerRunsOnJava11() throws Exception {
        TomcatServer.assertRunsOnJava(server, 11);
    }
}
