package dev.idempotency.store.jdbc;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import dev.idempotency.store.StoreSettings;
import dev.idempotency.store.jdbc.dialect.Dialect;

import java.util.concurrent.ThreadFactory;
import java.util.concurrent.atomic.AtomicInteger;

/** The HikariCP pool, set up to fail fast while the database is away and to recover by itself when it is back. */
final class ConnectionPool {

    private ConnectionPool() {
    }

    static HikariDataSource open(StoreSettings settings, Dialect dialect) {
        HikariConfig config = new HikariConfig();
        config.setPoolName("idempotency-store");
        config.setDataSource(new DriverDataSource(dialect.driverClassName(), settings.url(), settings.user(), settings.password(),
                dialect.driverProperties(settings)));
        config.setMaximumPoolSize(settings.poolSize());
        config.setMinimumIdle(Math.min(2, settings.poolSize()));
        config.setConnectionTimeout(settings.connectTimeout().toMillis());
        config.setValidationTimeout(Math.max(250, Math.min(settings.connectTimeout().toMillis(), 1000)));
        // Start even while the database is down; connections are made on demand and the pool heals by itself.
        config.setInitializationFailTimeout(-1);
        config.setAutoCommit(true);
        config.setThreadFactory(new PoolThreadFactory());
        return new HikariDataSource(config);
    }

    /** Daemon threads that never hold on to the class loader of whichever application thread started the pool. */
    private static final class PoolThreadFactory implements ThreadFactory {
        private final AtomicInteger count = new AtomicInteger();

        @Override
        public Thread newThread(Runnable task) {
            Thread thread = new Thread(task, "idempotency-store-pool-" + count.incrementAndGet());
            thread.setDaemon(true);
            thread.setContextClassLoader(ConnectionPool.class.getClassLoader());
            return thread;
        }
    }
}
