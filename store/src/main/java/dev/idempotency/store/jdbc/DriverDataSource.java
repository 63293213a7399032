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
 * visible to the caller's class loader, which breaks when the store lives in an isolated loader (inside the agent).
 */
final class DriverDataSource implements DataSource {
    private final Driver driver;
    private final String url;
    private final Properties properties;
    /**
     * What the pool sets (its connection timeout): the driver's own connect timeout applies, but the pool's close also
     * waits this long for a connection being made. At 0 it waited not at all, and a connection made after the close
     * stayed open for the life of the JVM.
     */
    private volatile int loginTimeoutSeconds;

    DriverDataSource(String driverClassName, String url, String user, String password, Properties driverProperties) {
        this.driver = instantiate(driverClassName);
        this.url = url;
        this.properties = new Properties();
        this.properties.putAll(driverProperties);
        if (user != null) properties.setProperty("user", user);
        if (password != null) properties.setProperty("password", password);
    }

    private static Driver instantiate(String className) {
        try {
            Class<?> type = Class.forName(className, true, DriverDataSource.class.getClassLoader());
            return (Driver) type.getDeclaredConstructor().newInstance();
        } catch (ReflectiveOperationException | LinkageError e) {
            throw new dev.idempotency.store.StoreConfigurationException("JDBC driver " + className + " cannot be loaded", e);
        }
    }

    @Override
    public Connection getConnection() throws SQLException {
        Connection connection = driver.connect(url, properties);
        if (connection == null) throw new SQLException("driver " + driver.getClass().getName() + " does not accept this URL", "08001");
        return connection;
    }

    @Override
    public Connection getConnection(String username, String password) throws SQLException {
        return getConnection();
    }

    @Override public PrintWriter getLogWriter() { return null; }
    @Override public void setLogWriter(PrintWriter out) { }
    @Override public void setLoginTimeout(int seconds) { loginTimeoutSeconds = seconds; }
    @Override public int getLoginTimeout() { return loginTimeoutSeconds; }
    @Override public Logger getParentLogger() throws SQLFeatureNotSupportedException { throw new SQLFeatureNotSupportedException(); }
    @Override public <T> T unwrap(Class<T> iface) throws SQLException { throw new SQLException("not a wrapper"); }
    @Override public boolean isWrapperFor(Class<?> iface) { return false; }
}
