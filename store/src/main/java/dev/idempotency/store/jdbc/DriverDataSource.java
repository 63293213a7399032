package dev.idempotency.store.jdbc;

import java.io.PrintWriter;
import java.sql.Connection;
import java.sql.Driver;
import java.sql.SQLException;
import java.sql.SQLFeatureNotSupportedException;
import java.util.Properties;
import java.util.logging.Logger;
import javax.sql.DataSource;

/**
 * Connects through a {@link Driver} instance this store created itself. {@code DriverManager} only hands out drivers
 * visible to the caller's class loader, which breaks when the store lives in an isolated loader (inside the agent). The
 * driver class comes from the store's own class loader, or from the jars of the store's driver path
 * ({@link DriverLoaders}).
 */
final class DriverDataSource implements DataSource {
    private final Driver driver;
    private final String url;
    private final Properties properties;
    /**
     * How long the pool's close waits for a connection being made, as its login timeout: enough for one just made to
     * reach the pool, which then closes it (at 0 it was never closed); a connect that ends later finds {@link #closed}.
     * Not what the pool sets (its connection timeout, unbounded), which would hold a JVM's exit as long.
     */
    private static final int CLOSE_WAITS_FOR_CONNECT_SECONDS = 1;
    /** Set before the pool closes: a connection made after that is closed at once (the pool would never close it). */
    private volatile boolean closed;

    /** {@code driverPath}: the jars to load the driver from, or null for the store's own class loader. */
    DriverDataSource(String driverClassName, String driverPath, String url, String user, String password,
            Properties driverProperties) {
        this.driver = instantiate(driverClassName, driverPath);
        this.url = url;
        this.properties = new Properties();
        this.properties.putAll(driverProperties);
        if (user != null) properties.setProperty("user", user);
        if (password != null) properties.setProperty("password", password);
    }

    private static Driver instantiate(String className, String driverPath) {
        try {
            ClassLoader loader = driverPath == null ? DriverDataSource.class.getClassLoader()
                    : DriverLoaders.forPath(driverPath);
            Class<?> type = Class.forName(className, true, loader);
            return (Driver) type.getDeclaredConstructor().newInstance();
        } catch (ReflectiveOperationException | LinkageError | ClassCastException e) {
            throw new dev.idempotency.store.StoreConfigurationException("JDBC driver " + className + " cannot be loaded"
                    + (driverPath == null ? "" : " from store setting 'driver-path' (" + driverPath + "): " + e), e);
        }
    }

    @Override
    public Connection getConnection() throws SQLException {
        if (closed) throw new SQLException("the idempotency store is closed", "08003");
        Connection connection = driver.connect(url, properties);
        if (connection == null) throw new SQLException("driver " + driver.getClass().getName() + " does not accept this URL", "08001");
        if (closed) {
            // Made by a connect that outlasted the pool's wait in close(): the pool no longer takes it.
            SQLException refused = new SQLException("the idempotency store closed while this connection was made", "08003");
            try {
                connection.close();
            } catch (SQLException notClosed) {
                refused.addSuppressed(notClosed);
            }
            throw refused;
        }
        return connection;
    }

    /** No connection from now on; one being made is closed as soon as it is. */
    void close() {
        closed = true;
    }

    @Override
    public Connection getConnection(String username, String password) throws SQLException {
        return getConnection();
    }

    @Override public PrintWriter getLogWriter() { return null; }
    @Override public void setLogWriter(PrintWriter out) { }
    @Override public void setLoginTimeout(int seconds) { }
    @Override public int getLoginTimeout() { return CLOSE_WAITS_FOR_CONNECT_SECONDS; }
    @Override public Logger getParentLogger() throws SQLFeatureNotSupportedException { throw new SQLFeatureNotSupportedException(); }
    @Override public <T> T unwrap(Class<T> iface) throws SQLException { throw new SQLException("not a wrapper"); }
    @Override public boolean isWrapperFor(Class<?> iface) { return false; }
}
