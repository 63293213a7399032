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

    /** The pool requests use: reserve, complete, release, operator queries. */
    static HikariDataSource open(StoreSettings settings, Dialect dialect) {
        return open(settings, dialect, "idempotency-store", settings.poolSize(), Math.min(2, settings.poolSize()));
    }

    /**
     * A pool of its own for the lease heartbeat and housekeeping: when requests hold every connection of the main pool,
     * the renewals that keep their own keys alive must not queue behind them, or slow requests would lose their leases
     * precisely when the store is busiest.
     */
    static HikariDataSource openBackground(StoreSettings settings, Dialect dialect, int size) {
        return open(settings, dialect, "idempotency-store-background", size, 1);
    }

    private static HikariDataSource open(StoreSettings settings, Dialect dialect, String name, int size, int minimumIdle) {
        HikariConfig config = new HikariConfig();
        config.setPoolName(name);
        config.setDataSource(new DriverDataSource(dialect.driverClassName(), settings.driverPath(), settings.url(),
                settings.user(), settings.password(), dialect.driverProperties(settings)));
        config.setMaximumPoolSize(size);
        config.setMinimumIdle(minimumIdle);
        config.setConnectionTimeout(settings.connectTimeout().toMillis());
        config.setValidationTimeout(Math.max(250, Math.min(settings.connectTimeout().toMillis(), 1000)));
        // Start even while the database is down; connections are made on demand and the pool heals by itself.
        config.setInitializationFailTimeout(-1);
        config.setAutoCommit(true);
        // A key's first insert into time partitions must see a competitor that committed while it waited for the key's
        // lock, which a repeatable-read snapshot taken before the wait does not: read committed, whatever the server's
        // default (the insert's own function refuses repeatable read too).
        if (settings.partitioning() != null) config.setTransactionIsolation("TRANSACTION_READ_COMMITTED");
        config.setThreadFactory(new PoolThreadFactory(name));
        return new HikariDataSource(config);
    }

    /**
     * Closes {@code pool} and every connection it made or is making. Hikari's close waits for a connection being made
     * (its data source's login timeout) and gives its shutdown up halfway, leaving connections open, when that wait is
     * interrupted: an interrupt of the closing thread is held back until the pool is closed.
     */
    static void close(HikariDataSource pool) {
        javax.sql.DataSource dataSource = pool.getDataSource();
        if (dataSource instanceof DriverDataSource) ((DriverDataSource) dataSource).close();
        boolean interrupted = Thread.interrupted();
        try {
            pool.close();
        } finally {
            if (interrupted) Thread.currentThread().interrupt();
        }
    }

    /** Daemon threads that never hold on to the class loader of whichever application thread started the pool. */
    private static final class PoolThreadFactory implements ThreadFactory {
        private final AtomicInteger count = new AtomicInteger();
        private final String name;

        PoolThreadFactory(String name) {
            this.name = name;
        }

        @Override
        public Thread newThread(Runnable task) {
            Thread thread = new Thread(task, name + "-" + count.incrementAndGet());
            thread.setDaemon(true);
            thread.setContextClassLoader(ConnectionPool.class.getClassLoader());
            return thread;
        }
    }
}
