package dev.idempotency.e2e.servers;

import dev.idempotency.e2e.support.E2eEnvironment;
import java.io.IOException;
import java.nio.file.Path;
import java.util.Arrays;

/** The orders service, deployed as each framework and server expects it. */
public final class OrdersServers {
    private OrdersServers() {
    }

    public static ServerProcess onTomcat(Path tomcatHome, String war) throws IOException {
        return new TomcatServer(tomcatHome, E2eEnvironment.war(war)).application("/shop", "/api/counters");
    }

    public static ServerProcess onWildFly(Path wildflyHome, String war) throws IOException {
        return new WildFlyServer(wildflyHome, E2eEnvironment.war(war)).application("/shop", "/api/counters");
    }

    public static ServerProcess springBoot() throws IOException {
        return new JarServer("spring-boot", E2eEnvironment.war("orders-spring-boot.jar"), Arrays.asList("--server.port={port}",
                "--server.address=127.0.0.1")).application("", "/api/counters");
    }
}
