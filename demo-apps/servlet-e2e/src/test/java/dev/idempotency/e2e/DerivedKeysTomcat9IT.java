package dev.idempotency.e2e;

import dev.idempotency.e2e.support.Client;
import dev.idempotency.e2e.support.ProviderStub;
import dev.idempotency.e2e.servers.TomcatServer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.util.List;
import java.util.UUID;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Never twice downstream, on a stock Tomcat 9 with the real agent jar: the transfers WAR (which knows nothing about
 * idempotency) charges a provider that honours Idempotency-Key as Stripe does, through HttpURLConnection, the JDK's
 * HttpClient, Apache HttpClient 4 and 5 and OkHttp 4, each in the WAR as an application ships it. Only 127.0.0.1 is listed in idempotency.outbound.hosts; localhost reaches the same provider unlisted.
 * Everything is asserted on what the provider received and executed.
 */
public class DerivedKeysTomcat9IT {
    private static ProviderStub provider;
    /** Reached by the Stripe SDK, at an address of its own that idempotency.outbound.replace-keys names. */
    private static ProviderStub stripe;
    private static TomcatServer server;
    private static Client client;

    @BeforeAll
    public static void start() throws Exception {
        provider = new ProviderStub();
        stripe = new ProviderStub(java.net.InetAddress.getByName("127.0.0.2"));
        server = TomcatServer.transfersTomcat9();
        Path h2 = Path.of(org.h2.Driver.class.getProtectionDomain().getCodeSource().getLocation().toURI());
        server.library(h2).context("<Context><Resource name=\"jdbc/transfers\" auth=\"Container\" type=\"javax.sql.DataSource\""
                + " driverClassName=\"org.h2.Driver\" url=\"jdbc:h2:mem:transfers;DB_CLOSE_DELAY=-1\"/></Context>");
        server.set("idempotency.outbound.hosts", "127.0.0.1,127.0.0.2").set("idempotency.outbound.replace-keys", "127.0.0.2");
        server.application("/shop", "/stages");
        server.start();
        client = new Client(server.baseUrl());
    }

    @AfterAll
    public static void stop() throws Exception {
        if (server != null) server.close();
        if (provider != null) provider.close();
        if (stripe != null) stripe.close();
    }

    private static HttpRequest.Builder payout(String key, String transfer, String via, String host) {
        return client.request("/payouts").header("Idempotency-Key", key).header("Content-Type", "application/json")
                .header("X-Client", via).header("X-Provider-Url", provider.url(host))
                .POST(HttpRequest.BodyPublishers.ofString("{\"transfer\":\"" + transfer + "\",\"amount\":1200}"));
    }

    private static String transfer() {
        return "t" + UUID.randomUUID().toString().replace("-", "").substring(0, 20);
    }

    /** A 5xx releases the key, and so does a retry status (429 by default): the client's retry runs the application again. */
    @ParameterizedTest(name = "{0} after {1}")
    @org.junit.jupiter.params.provider.CsvSource({"url-connection,500", "jdk,500", "apache4,500", "apache5,500", "okhttp,500",
            "url-connection,429", "jdk,429", "okhttp,429"})
    public void aRetryAfterTheApplicationFailedRepeatsTheChargeWithTheSameKeyAndTheProviderExecutesItOnce(String via, int status) throws Exception {
        String key = UUID.randomUUID().toString();
        String transfer = transfer();
        HttpResponse<byte[]> failed = client.send(payout(key, transfer, via, "127.0.0.1").header("X-Fail-After-Call", String.valueOf(status)));
        assertEquals(status, failed.statusCode(), "the first attempt failed after charging");
        HttpResponse<byte[]> retry = client.send(payout(key, transfer, via, "127.0.0.1"));
        assertEquals(201, retry.statusCode(), "the released key ran again");
        List<String> keys = provider.keys(transfer);
        assertEquals(2, keys.size(), "the provider was called by both attempts: " + keys);
        assertNotEquals("null", keys.get(0), "the call carried a key");
        assertEquals(keys.get(0), keys.get(1), "both attempts sent the same derived key");
        assertNotEquals(key, keys.get(0), "the incoming key does not leave");
        assertEquals(1, provider.executions(transfer), "the provider charged once");
        assertTrue(new String(retry.body()).contains("\"provider\":200"), new String(retry.body()));
    }

    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {"url-connection", "jdk", "apache4", "apache5", "okhttp"})
    public void twoCallsInOneRequestGetTwoKeysAndAnotherRequestOthers(String via) throws Exception {
        String transfer = transfer();
        assertEquals(201, client.send(payout(UUID.randomUUID().toString(), transfer, via, "127.0.0.1").header("X-Provider-Calls", "2")).statusCode());
        assertEquals(201, client.send(payout(UUID.randomUUID().toString(), transfer, via, "127.0.0.1")).statusCode());
        List<String> keys = provider.keys(transfer);
        assertEquals(3, keys.size(), keys.toString());
        assertEquals(3, keys.stream().distinct().count(), "every call its own key: " + keys);
        assertTrue(keys.stream().noneMatch("null"::equals), keys.toString());
        assertEquals(3, provider.executions(transfer));
    }

    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {"url-connection", "jdk", "apache4", "apache5", "okhttp"})
    public void anUnlistedHostGetsNoHeaderAndTheApplicationsOwnHeaderIsLeftAlone(String via) throws Exception {
        String unlisted = transfer();
        assertEquals(201, client.send(payout(UUID.randomUUID().toString(), unlisted, via, "localhost")).statusCode());
        assertEquals(List.of("null"), provider.keys(unlisted), "no key leaves for a host not listed");
        String own = transfer();
        assertEquals(201, client.send(payout(UUID.randomUUID().toString(), own, via, "127.0.0.1").header("X-Own-Key", "app-key-" + own)).statusCode());
        assertEquals(List.of("app-key-" + own), provider.keys(own));
        String unkeyed = transfer();
        HttpRequest.Builder noKey = client.request("/payouts").header("Content-Type", "application/json").header("X-Client", via)
                .header("X-Provider-Url", provider.url("127.0.0.1"))
                .POST(HttpRequest.BodyPublishers.ofString("{\"transfer\":\"" + unkeyed + "\",\"amount\":1200}"));
        assertEquals(201, client.send(noKey).statusCode());
        assertEquals(List.of("null"), provider.keys(unkeyed), "a request without a key derives nothing");
    }

    private static HttpRequest.Builder stripeCharge(String key, String transfer) {
        return client.request("/stripe-charges").header("Idempotency-Key", key).header("Content-Type", "application/json")
                .header("X-Provider-Url", stripe.base())
                .POST(HttpRequest.BodyPublishers.ofString("{\"transfer\":\"" + transfer + "\",\"amount\":1200}"));
    }

    /**
     * stripe-java makes up a random Idempotency-Key for every POST, so the application's re-run would charge again with
     * a new one: for a host in idempotency.outbound.replace-keys the derived key replaces it, and the SDK's own network
     * retry of the same call (the same made-up key) keeps the derived key it got.
     */
    @org.junit.jupiter.api.Test
    public void theStripeSdksOwnKeyIsReplacedSoThatARerunAndTheSdksRetryChargeOnce() throws Exception {
        String key = UUID.randomUUID().toString();
        String transfer = "flaky-" + transfer(); // its first answer is lost: the SDK retries that call itself
        assertEquals(500, client.send(stripeCharge(key, transfer).header("X-Fail-After-Call", "yes")).statusCode());
        HttpResponse<byte[]> retry = client.send(stripeCharge(key, transfer));
        assertEquals(201, retry.statusCode(), new String(retry.body()));
        List<String> keys = stripe.keys(transfer);
        assertEquals(3, keys.size(), "the SDK's call, its own retry, and the re-run's call: " + keys);
        assertEquals(1, keys.stream().distinct().count(), "one key for all three: " + keys);
        assertTrue(keys.get(0).matches("[0-9a-f]{8}-[0-9a-f]{4}-8[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}"),
                "the derived key (a version 8 UUID), not the SDK's version 4: " + keys);
        assertEquals(1, stripe.executions(transfer), "the provider charged once");
    }
}
