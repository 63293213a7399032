package dev.idempotency.e2e;

import dev.idempotency.e2e.support.Client;
import dev.idempotency.e2e.scenarios.OrdersScenarios;
import dev.idempotency.e2e.servers.OrdersServers;
import dev.idempotency.e2e.servers.ServerProcess;
import dev.idempotency.e2e.scenarios.SpringTransparencyChecks;

/** Spring Boot 3 executable jar (embedded Tomcat, jakarta); its errors are rendered by Boot's error controller. */
public class SpringBootIT extends OrdersScenarios implements SpringTransparencyChecks {
    @Override
    protected ServerProcess server() throws Exception {
        return OrdersServers.springBoot();
    }

    @Override
    public Client client() {
        return client;
    }

    /** Boot's error controller writes the time of each rendering. */
    @Override
    public String comparable(String body) {
        return body.replaceFirst("\"timestamp\":\"[^\"]*\"", "\"timestamp\":\"(each rendering's)\"");
    }
}
