package dev.idempotency.e2e.support;

import java.nio.file.Path;
import java.nio.file.Paths;

/** Where the build put the agent jar, the WARs and the unpacked server distributions. */
public final class E2eEnvironment {
    private E2eEnvironment() {
    }

    public static Path agentJar() { return path("e2e.agent.jar"); }
    public static Path otelAgentJar() { return path("e2e.otel.agent.jar"); }
    public static String otelAgentVersion() { return System.getProperty("e2e.otel.agent.version"); }
    public static Path war(String name) { return path("e2e.wars").resolve(name); }
    public static Path work() { return path("e2e.work"); }
    public static Path tomcat9() { return path("e2e.servers").resolve(System.getProperty("e2e.tomcat9")); }
    public static Path tomcat10() { return path("e2e.servers").resolve(System.getProperty("e2e.tomcat10")); }
    public static Path tomcat11() { return path("e2e.servers").resolve(System.getProperty("e2e.tomcat11")); }
    public static Path jetty12() { return path("e2e.servers").resolve(System.getProperty("e2e.jetty12")); }
    public static Path jetty11() { return path("e2e.servers").resolve(System.getProperty("e2e.jetty11")); }
    public static Path jetty94() { return path("e2e.servers").resolve(System.getProperty("e2e.jetty94")); }
    public static Path tomee8() { return path("e2e.servers").resolve(System.getProperty("e2e.tomee8")); }
    public static Path tomee9() { return path("e2e.servers").resolve(System.getProperty("e2e.tomee9")); }
    public static Path payara5() { return path("e2e.servers").resolve("payara5"); }
    public static Path payara6() { return path("e2e.servers").resolve("payara6"); }
    public static Path openLiberty() { return path("e2e.servers").resolve("wlp"); }
    public static Path wildfly26() { return path("e2e.servers").resolve(System.getProperty("e2e.wildfly26")); }
    public static Path wildfly39() { return path("e2e.servers").resolve(System.getProperty("e2e.wildfly39")); }

    /** The Temurin 25 JDK installed beside the default one. */
    public static Path jdk25() { return Paths.get("/usr/lib/jvm/temurin-25-jdk-amd64"); }

    /**
     * Debian's OpenJDK 11 runtime (bullseye's openjdk-11-jre-headless, which .ci/run installs pinned to that one
     * package), or another JDK 11 named by IDEMPOTENCY_TEST_JDK11.
     */
    public static Path jdk11() {
        String home = System.getenv("IDEMPOTENCY_TEST_JDK11");
        Path jdk = Paths.get(home != null ? home : "/usr/lib/jvm/java-11-openjdk-amd64");
        if (!java.nio.file.Files.isExecutable(jdk.resolve("bin/java"))) {
            throw new IllegalStateException("no JDK 11 at " + jdk + ": install Debian bullseye's openjdk-11-jre-headless as .ci/run does,"
                    + " or set IDEMPOTENCY_TEST_JDK11");
        }
        return jdk;
    }

    /**
     * Debian sid's OpenJDK 8 runtime beside sid's C library, as .ci/install-jdk8 lays it out (bookworm has neither a
     * JDK 8 nor a C library new enough for sid's), or another JDK 8 named by IDEMPOTENCY_TEST_JDK8.
     */
    public static Path jdk8() {
        String home = System.getenv("IDEMPOTENCY_TEST_JDK8");
        Path jdk = Paths.get(home != null ? home : "/opt/idempotency-jdk8/usr/lib/jvm/java-8-openjdk-amd64/jre");
        if (!java.nio.file.Files.isExecutable(jdk.resolve("bin/java"))) {
            throw new IllegalStateException("no JDK 8 at " + jdk + ": run .ci/install-jdk8 as .ci/run does, or set IDEMPOTENCY_TEST_JDK8");
        }
        return jdk;
    }

    private static Path path(String property) {
        String value = System.getProperty(property);
        if (value == null) throw new IllegalStateException("system property " + property + " is not set; run through Maven (failsafe)");
        return Paths.get(value).toAbsolutePath().normalize();
    }
}
