package dev.idempotency.store.jdbc;

import dev.idempotency.store.OwnershipToken;
import dev.idempotency.store.Reservation;
import dev.idempotency.store.StoreConfigurationException;
import dev.idempotency.store.StoreSettings;
import dev.idempotency.store.StoredResponse;
import dev.idempotency.store.testing.TestDatabase;
import org.junit.jupiter.api.Test;

import java.net.URISyntaxException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Paths;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.Statement;
import java.util.Collections;
import java.util.Properties;
import java.util.concurrent.ThreadLocalRandom;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNotSame;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The store's driver path: the JDBC driver loaded from jars the operator names (inside the agent, a MariaDB Connector/J
 * of their own in place of the bundled one), in a loader of its own, not from the store's class loader. The jars here
 * are the drivers' own, found where the test's class path has them.
 */
class DriverPathTest {

    @Test
    void theDriverComesFromThePathsJarsInALoaderOfItsOwnSharedByEveryDataSource() throws Exception {
        String h2 = jarOf(org.h2.Driver.class);
        DriverDataSource dataSource = new DriverDataSource("org.h2.Driver", h2, "jdbc:h2:mem:driver_path_loader", null, null, new Properties());
        try (Connection c = dataSource.getConnection(); Statement s = c.createStatement(); ResultSet rs = s.executeQuery("SELECT 1")) {
            assertTrue(rs.next());
            ClassLoader loader = c.getClass().getClassLoader();
            assertInstanceOf(DriverLoaders.OperatorDriverLoader.class, loader);
            assertNotSame(org.h2.Driver.class.getClassLoader(), loader, "not the store's own driver");
            assertSame(loader, DriverLoaders.forPath(h2), "one loader per path");
            assertEquals(Paths.get(h2).toUri().toURL(), c.getClass().getProtectionDomain().getCodeSource().getLocation());
        }
    }

    @Test
    void aPathWithoutTheDriverIsRefusedNamingTheSettingAndThePath() throws Exception {
        String hikari = jarOf(com.zaxxer.hikari.HikariConfig.class);
        StoreConfigurationException e = assertThrows(StoreConfigurationException.class,
                () -> new DriverDataSource("org.h2.Driver", hikari, "jdbc:h2:mem:x", null, null, new Properties()));
        assertTrue(e.getMessage().contains("store setting 'driver-path' (" + hikari + ")"), e.getMessage());
        assertTrue(e.getMessage().contains("ClassNotFoundException: org.h2.Driver"), e.getMessage());
    }

    @Test
    void anH2StoreRunsOnTheDriverFromThePath() throws Exception {
        keyLife(StoreSettings.builder().url("jdbc:h2:mem:driver_path_store;DB_CLOSE_DELAY=-1").driverPath(jarOf(org.h2.Driver.class)).build());
    }

    @Test
    void aMariaDbStoreRunsOnTheConnectorFromThePath() throws Exception {
        TestDatabase db = TestDatabase.mariadb();
        String table = "driver_path_" + Long.toHexString(ThreadLocalRandom.current().nextLong() & Long.MAX_VALUE);
        try {
            keyLife(StoreSettings.builder().url(db.url).user(db.user).password(db.password).table(table)
                    .driverPath(jarOf(org.mariadb.jdbc.Driver.class)).build());
        } finally {
            try (Connection c = db.connect(new Properties()); Statement s = c.createStatement()) {
                s.execute("DROP TABLE IF EXISTS " + table);
            }
        }
    }

    /** A key reserved, completed and replayed through a store opened with these settings. */
    private static void keyLife(StoreSettings settings) {
        try (JdbcIdempotencyStore store = JdbcIdempotencyStore.open(settings)) {
            Reservation first = store.reserve("tenant", "key-1", "fingerprint");
            assertEquals(Reservation.Outcome.ACQUIRED, first.outcome());
            OwnershipToken token = first.token();
            assertTrue(store.complete(token, new StoredResponse(201, Collections.emptyList(), "done".getBytes(StandardCharsets.UTF_8))));
            Reservation again = store.reserve("tenant", "key-1", "fingerprint");
            assertEquals(Reservation.Outcome.REPLAY, again.outcome());
            assertEquals("done", new String(again.response().body(), StandardCharsets.UTF_8));
        }
    }

    private static String jarOf(Class<?> type) throws URISyntaxException {
        return Paths.get(type.getProtectionDomain().getCodeSource().getLocation().toURI()).toString();
    }
}
