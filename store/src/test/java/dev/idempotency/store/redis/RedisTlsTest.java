package dev.idempotency.store.redis;

import dev.idempotency.store.Reservation.Outcome;
import dev.idempotency.store.StoreSettings;
import dev.idempotency.store.StoreUnavailableException;
import dev.idempotency.store.testing.LocalServers;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLSocket;
import javax.net.ssl.SSLSocketFactory;
import javax.net.ssl.TrustManagerFactory;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.KeyStore;
import java.security.cert.CertificateFactory;
import java.time.Duration;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * {@code rediss://} against two redis-servers of the test's own with TLS, each with a certificate openssl made for the
 * name {@code localhost} only: the JVM's default TLS context is made to trust the first and not the second. The store
 * trusts what the JVM trusts, and checks the name.
 */
class RedisTlsTest {
    private static Path dir;
    private static OwnRedis trustedServer;
    private static OwnRedis untrustedServer;
    private static int trustedPort;
    private static int untrustedPort;

    @BeforeAll
    static void servers() throws Exception {
        dir = Files.createTempDirectory("redis-tls");
        certificate("trusted");
        certificate("untrusted");
        trustedPort = LocalServers.freePort();
        trustedServer = OwnRedis.start(tls("trusted", trustedPort));
        untrustedPort = LocalServers.freePort();
        untrustedServer = OwnRedis.start(tls("untrusted", untrustedPort));

        KeyStore trust = KeyStore.getInstance(KeyStore.getDefaultType());
        trust.load(null, null);
        trust.setCertificateEntry("trusted", CertificateFactory.getInstance("X.509")
                .generateCertificate(Files.newInputStream(dir.resolve("trusted.pem"))));
        TrustManagerFactory tmf = TrustManagerFactory.getInstance(TrustManagerFactory.getDefaultAlgorithm());
        tmf.init(trust);
        SSLContext context = SSLContext.getInstance("TLS");
        context.init(null, tmf.getTrustManagers(), null);
        // Takes effect unless this JVM already made its default TLS socket factory (the JDK makes it once): see below.
        SSLContext.setDefault(context);
    }

    private static void certificate(String name) throws Exception {
        Process openssl;
        try {
            openssl = new ProcessBuilder("openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "1",
                    "-subj", "/CN=localhost", "-addext", "subjectAltName=DNS:localhost",
                    "-keyout", dir.resolve(name + ".key").toString(), "-out", dir.resolve(name + ".pem").toString())
                    .redirectErrorStream(true).redirectOutput(dir.resolve(name + ".log").toFile()).start();
        } catch (IOException e) {
            LocalServers.unavailable("openssl is not installed: " + e.getMessage());
            return;
        }
        assertTrue(openssl.waitFor(60, TimeUnit.SECONDS) && openssl.exitValue() == 0, "openssl failed for " + name);
    }

    private static String[] tls(String name, int port) {
        String cert = dir.resolve(name + ".pem").toString();
        return new String[] {"--tls-port", Integer.toString(port), "--tls-cert-file", cert,
                "--tls-key-file", dir.resolve(name + ".key").toString(), "--tls-ca-cert-file", cert, "--tls-auth-clients", "no"};
    }

    @AfterAll
    static void stop() throws Exception {
        try {
            if (trustedServer != null) trustedServer.close();
            if (untrustedServer != null) untrustedServer.close();
        } finally {
            if (dir != null) {
                try (java.util.stream.Stream<Path> files = Files.list(dir)) {
                    for (Path f : (Iterable<Path>) files::iterator) Files.delete(f);
                }
                Files.delete(dir);
            }
        }
    }

    private static RedisIdempotencyStore open(String url) {
        return RedisIdempotencyStore.open(StoreSettings.builder().url(url).table(RedisTestServer.randomPrefix())
                .connectTimeout(Duration.ofSeconds(5)).queryTimeout(Duration.ofSeconds(2)).build());
    }

    @Test
    void aTrustedCertificateWorksForTheNameItCarriesAndNoOther() {
        Assumptions.assumeTrue(defaultFactoryTrustsTheTestCertificate(),
                "this JVM made its default TLS socket factory before the test could make it trust the test's certificate");
        try (RedisIdempotencyStore store = open("rediss://localhost:" + trustedPort)) {
            store.checkSchema();
            assertEquals(Outcome.ACQUIRED, store.reserve("t", "k", "fp").outcome());
        }
        try (RedisIdempotencyStore store = open("rediss://127.0.0.1:" + trustedPort)) {
            StoreUnavailableException e = assertThrows(StoreUnavailableException.class, () -> store.reserve("t", "k", "fp"));
            assertTrue(e.getMessage().contains("127.0.0.1"), e.getMessage());
        }
    }

    @Test
    void aCertificateTheJvmDoesNotTrustIsRefused() {
        try (RedisIdempotencyStore store = open("rediss://localhost:" + untrustedPort)) {
            StoreUnavailableException e = assertThrows(StoreUnavailableException.class, () -> store.reserve("t", "k", "fp"));
            assertTrue(e.getMessage().contains("PKIX"), e.getMessage());
        }
    }

    @Test
    void aPlainConnectionToATlsPortIsUnavailable() {
        try (RedisIdempotencyStore store = open("redis://localhost:" + trustedPort)) {
            assertThrows(StoreUnavailableException.class, () -> store.reserve("t", "k", "fp"));
        }
    }

    /** Whether the JVM's default TLS socket factory (which the Redis client uses) trusts the first server's certificate. */
    private static boolean defaultFactoryTrustsTheTestCertificate() {
        try (SSLSocket probe = (SSLSocket) SSLSocketFactory.getDefault().createSocket("localhost", trustedPort)) {
            probe.setSoTimeout(5000);
            probe.startHandshake();
            return true;
        } catch (IOException e) {
            return false;
        }
    }
}
