package dev.idempotency.store.jdbc.dialect;

import dev.idempotency.store.StoreSettings;

import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Instant;
import java.time.LocalDateTime;
import java.time.ZoneOffset;
import java.util.Properties;

/** MariaDB and MySQL. Timestamps are DATETIME in UTC so that session time zones of different nodes never matter. */
final class MySqlDialect extends Dialect {

    private final boolean mysqlUrl;

    MySqlDialect(boolean mysqlUrl) {
        this.mysqlUrl = mysqlUrl;
    }

    @Override public String name() { return "mysql"; }

    // jdbc:mysql: URLs are served by the MariaDB driver too (it accepts them when permitMysqlScheme is set).
    @Override public String driverClassName() { return "org.mariadb.jdbc.Driver"; }

    @Override
    public Properties driverProperties(StoreSettings settings) {
        Properties p = new Properties();
        p.setProperty("connectTimeout", String.valueOf(settings.connectTimeout().toMillis()));
        p.setProperty("socketTimeout", String.valueOf(settings.queryTimeout().toMillis()));
        p.setProperty("tcpKeepAlive", "true");
        if (mysqlUrl) p.setProperty("permitMysqlScheme", "true");
        return p;
    }

    @Override public String now() { return "UTC_TIMESTAMP(3)"; }

    @Override public String nowPlusMillisParameter() { return "TIMESTAMPADD(MICROSECOND, CAST(? AS SIGNED) * 1000, UTC_TIMESTAMP(3))"; }

    @Override public String millisUntil(String column) {
        return "(TIMESTAMPDIFF(MICROSECOND, UTC_TIMESTAMP(3), " + column + ") DIV 1000)";
    }

    // INSERT IGNORE only downgrades the duplicate key here: every other value is validated before it reaches SQL.
    @Override
    public String insertIfAbsent(String table, String columns, String values) {
        return "INSERT IGNORE INTO " + table + " (" + columns + ") VALUES (" + values + ")";
    }

    @Override
    public String limitedUpdate(String table, String set, String where, int limit) {
        return "UPDATE " + table + " SET " + set + " WHERE " + where + " LIMIT " + limit;
    }

    @Override
    public String limitedDelete(String table, String where, int limit) {
        return "DELETE FROM " + table + " WHERE " + where + " LIMIT " + limit;
    }

    @Override public String limitParameter() { return " LIMIT ?"; }

    @Override
    public Instant readInstant(ResultSet rs, String column) throws SQLException {
        LocalDateTime value = rs.getObject(column, LocalDateTime.class);
        return value == null ? null : value.toInstant(ZoneOffset.UTC);
    }
}
