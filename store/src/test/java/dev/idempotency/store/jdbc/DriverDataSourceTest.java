package dev.idempotency.store.jdbc;

import dev.idempotency.store.StoreSettings;
import dev.idempotency.store.jdbc.dialect.Dialect;
import dev.idempotency.store.testing.Await;
import dev.idempotency.store.testing.TcpProxy;
import dev.idempotency.store.testing.TestDatabase;
import org.junit.jupiter.api.Test;

import java.sql.Connection;
import java.sql.SQLException;
import java.time.Duration;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;

/**
 * The store's data source after the store closed. The pool's close waits for a connection being made only about as long
 * as the connect timeout, and a connect may take longer (the driver rounds its timeout up to whole seconds): the pool
 * would never close such a connection, so the data source does.
 */
class DriverDataSourceTest {

    @Test
    void aConnectionMadeAfterCloseIsClosedAtOnceAndNoneIsMadeAfterIt() throws Exception {
        TestDatabase db = TestDatabase.postgres();
        ExecutorService connecting = Executors.newSingleThreadExecutor();
        try (TcpProxy proxy = new TcpProxy(db.hostAndPort())) {
            StoreSettings settings = StoreSettings.builder().url(db.viaPort("127.0.0.1", proxy.port())).user(db.user)
                    .password(db.password).connectTimeout(Duration.ofSeconds(10)).build();
            Dialect dialect = Dialect.forUrl(settings.url());
            DriverDataSource dataSource = new DriverDataSource(dialect.driverClassName(), null, settings.url(), settings.user(),
                    settings.password(), dialect.driverProperties(settings));
            proxy.holdNewConnections();
            Future<Connection> made = connecting.submit(() -> dataSource.getConnection());
            Await.until("the connect to reach the database", Duration.ofSeconds(10), proxy::heldConnections, n -> n > 0);

            dataSource.close();
            proxy.releaseHeld();

            ExecutionException refused = assertThrows(ExecutionException.class, () -> made.get(20, TimeUnit.SECONDS));
            assertInstanceOf(SQLException.class, refused.getCause());
            assertEquals("08003", ((SQLException) refused.getCause()).getSQLState(), refused.getCause().getMessage());
            Await.until("the connection made after close to be closed", Duration.ofSeconds(10), proxy::openConnections, n -> n == 0);
            SQLException afterClose = assertThrows(SQLException.class, dataSource::getConnection);
            assertEquals("08003", afterClose.getSQLState());
            assertEquals(0, proxy.openConnections(), "no connect after close");
        } finally {
            connecting.shutdownNow();
        }
    }
}
