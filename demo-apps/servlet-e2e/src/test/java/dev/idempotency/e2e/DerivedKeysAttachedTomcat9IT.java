package dev.idempotency.e2e;

import dev.idempotency.e2e.support.AgentTool;
import dev.idempotency.e2e.support.Client;
import dev.idempotency.e2e.support.ProviderStub;
import dev.idempotency.e2e.servers.ServerProcess;
import dev.idempotency.e2e.servers.TomcatServer;
import org.junit.jupiter.api.Test;

import java.net.http.HttpRequest;
import java.nio.file.Path;
import java.util.List;
import java.util.UUID;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Derived keys through the attach path: a stock Tomcat 9 serving the transfers WAR without the agent has already made
 * outbound calls (so the JDK's HttpURLConnection and HttpClient classes are loaded and must be retransformed); the
 * operator attaches the agent with idempotency.outbound.hosts; a keyed payout that fails after charging, and its
 * retry, then charge the provider once under one derived key.
 */
public class DerivedKeysAttachedTomcat9IT {

    private static HttpRequest.Builder payout(Client client, ProviderStub provider, String key, String transfer, String via) {
        HttpRequest.Builder request = client.request("/payouts").header("Content-Type", "application/json").header("X-Client", via)
                .header("X-Provider-Url", provider.url("127.0.0.1"))
                .POST(HttpRequest.BodyPublishers.ofString("{\"transfer\":\"" + transfer + "\",\"amount\":700}"));
        return key == null ? request : request.header("Idempotency-Key", key);
    }

    @Test
    public void anAttachedAgentDerivesKeysForClientsLoadedBeforeIt() throws Exception {
        Path h2 = Path.of(org.h2.Driver.class.getProtectionDomain().getCodeSource().getLocation().toURI());
        TomcatServer tomcat = TomcatServer.transfersTomcat9();
        tomcat.library(h2).context("<Context><Resource name=\"jdbc/transfers\" auth=\"Container\" type=\"javax.sql.DataSource\""
                + " driverClassName=\"org.h2.Driver\" url=\"jdbc:h2:mem:transfers;DB_CLOSE_DELAY=-1\"/></Context>");
        try (ProviderStub provider = new ProviderStub(); ServerProcess server = tomcat.withAgent(false)) {
            server.application("/shop", "/stages");
            server.start();
            Client client = new Client(server.baseUrl());
            for (String via : new String[] {"url-connection", "jdk"}) {
                String before = "b" + UUID.randomUUID().toString().replace("-", "").substring(0, 20);
                assertEquals(201, client.send(payout(client, provider, UUID.randomUUID().toString(), before, via)).statusCode());
                assertEquals(List.of("null"), provider.keys(before), "no agent yet: no key");
            }
            AgentTool.Result attach = AgentTool.run(Path.of(System.getProperty("java.home")), "", "attach", String.valueOf(server.pid()),
                    "outbound.hosts=127.0.0.1");
            assertEquals(0, attach.exit, attach.toString());
            for (String via : new String[] {"url-connection", "jdk"}) {
                String key = UUID.randomUUID().toString();
                String transfer = "a" + UUID.randomUUID().toString().replace("-", "").substring(0, 20);
                assertEquals(500, client.send(payout(client, provider, key, transfer, via).header("X-Fail-After-Call", "500")).statusCode());
                assertEquals(201, client.send(payout(client, provider, key, transfer, via)).statusCode());
                List<String> keys = provider.keys(transfer);
                assertEquals(2, keys.size(), via + ": " + keys);
                assertNotEquals("null", keys.get(0), via + ": the call carried a key");
                assertEquals(keys.get(0), keys.get(1), via + ": the same derived key on the retry");
                assertEquals(1, provider.executions(transfer), via + ": the provider charged once");
            }
            assertTrue(server.agentLines().contains("; outbound.hosts=127.0.0.1;"), server.agentLines());
        }
    }
}
