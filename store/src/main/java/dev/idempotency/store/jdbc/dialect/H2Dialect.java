package dev.idempotency.store.jdbc.dialect;

import dev.idempotency.store.StoreSettings;

import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.util.Locale;
import java.util.Properties;

/** The embedded default. */
final class H2Dialect extends Dialect {

    @Override public String name() { return "h2"; }

    @Override public String driverClassName() { return "org.h2.Driver"; }

    // H2 writes commits to its file up to 500 ms late by default; a process killed in that window would forget a
    // reservation and let its key run twice. Every commit reaches the file before the statement returns.
    @Override
    public Properties driverProperties(StoreSettings settings) {
        Properties p = new Properties();
        p.setProperty("WRITE_DELAY", "0");
        // The session's query timeout, set once: see limitTime.
        unlessInUrl(p, settings, "QUERY_TIMEOUT", String.valueOf(seconds(settings.queryTimeout()) * 1000L));
        // A stored response up to 4 KiB stays in its row. Beyond 256 bytes (H2's default for a database on file) it
        // went to H2's LOB storage, more B-trees for every commit to write: measured with 1 KiB bodies, 15 to 19 % more
        // CPU per key. A database in memory keeps every value in its row already.
        if (!inMemory(settings.url())) unlessInUrl(p, settings, "MAX_LENGTH_INPLACE_LOB", String.valueOf(IN_PLACE_LOB_BYTES));
        return p;
    }

    private static final int IN_PLACE_LOB_BYTES = 4096;

    @Override
    public String caution(String url) {
        if (!inMemory(url)) return null;
        return "an H2 database in memory forgets every key when its JVM stops, and the retries of those requests then"
                + " run again -> a database on file (jdbc:h2:file:...) or a server";
    }

    /** jdbc:h2:mem:…, or an in-memory database of an H2 server (jdbc:h2:tcp://host/mem:…). */
    private static boolean inMemory(String url) {
        String u = url.toLowerCase(Locale.ROOT);
        return u.startsWith("jdbc:h2:mem:") || u.matches("jdbc:h2:(tcp|ssl)://[^/]*/mem:.*");
    }

    /** A setting the URL does not name already: one it names is the operator's (and H2 refuses both). */
    private static void unlessInUrl(Properties p, StoreSettings settings, String name, String value) {
        if (!settings.url().toUpperCase(Locale.ROOT).contains(";" + name + "=")) p.setProperty(name, value);
    }

    /*
     * H2's driver runs SET QUERY_TIMEOUT for every Statement.setQueryTimeout, same value or not, and any SET empties
     * the statement cache of every session: each statement of every keyed request was parsed and planned anew (about
     * 4 % of a keyed request's CPU under load). The session carries the timeout from its driver properties instead.
     */
    @Override
    public void limitTime(java.sql.Statement statement, int timeoutSeconds) {
    }

    @Override public String now() { return "CURRENT_TIMESTAMP"; }

    @Override public String nowPlusMillisParameter() { return "DATEADD(MILLISECOND, CAST(? AS BIGINT), CURRENT_TIMESTAMP)"; }

    @Override public String millisUntil(String column) { return "DATEDIFF(MILLISECOND, CURRENT_TIMESTAMP, " + column + ")"; }

    /*
     * H2 has no conflict-ignoring insert outside its compatibility modes. A plain insert in autocommit is one atomic
     * statement whose failure aborts nothing else; the store reads the duplicate-key error as "present".
     */
    @Override
    public String insertIfAbsent(String table, String columns, String values, String primaryKey) {
        return "INSERT INTO " + table + " (" + columns + ") VALUES (" + values + ")";
    }

    @Override public boolean refusedInsertKeepsTransaction() { return true; }

    // H2 2.2 miscounts the rows of DELETE ... FETCH FIRST; selecting the batch's keys in a subquery counts right.
    @Override
    public String limitedUpdate(String table, String set, String where, int limit) {
        return "UPDATE " + table + " SET " + set + " WHERE " + where + " AND " + batchKeys(table, where, limit);
    }

    @Override
    public String limitedDelete(String table, String where, int limit) {
        return "DELETE FROM " + table + " WHERE " + where + " AND " + batchKeys(table, where, limit);
    }

    private static String batchKeys(String table, String where, int limit) {
        return "(scope, idem_key) IN (SELECT scope, idem_key FROM " + table + " WHERE " + where + " FETCH FIRST " + limit + " ROWS ONLY)";
    }

    @Override
    public Instant readInstant(ResultSet rs, String column) throws SQLException {
        OffsetDateTime value = rs.getObject(column, OffsetDateTime.class);
        return value == null ? null : value.toInstant();
    }

    @Override public String currentSchema() { return "CURRENT_SCHEMA"; }

    // H2 has no shared row lock.
    @Override public String shareLockClause() { return " FOR UPDATE"; }
}
