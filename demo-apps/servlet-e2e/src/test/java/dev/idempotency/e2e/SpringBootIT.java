package dev.idempotency.e2e;

/** Spring Boot 3 executable jar (embedded Tomcat, jakarta); its errors are rendered by Boot's error controller. */
class SpringBootIT extends OrdersScenarios implements SpringTransparencyChecks {
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
