package dev.idempotency.agent.core.effects;

import dev.idempotency.agent.bootstrap.bridge.EffectBridge;
import dev.idempotency.store.EffectMark;
import dev.idempotency.store.ExpiredLeasePolicy;
import dev.idempotency.store.KeyRecord;
import dev.idempotency.store.KeyStatus;
import dev.idempotency.store.Reservation;
import dev.idempotency.store.StoreSettings;
import dev.idempotency.store.jdbc.JdbcIdempotencyStore;
import dev.idempotency.store.testing.Await;
import dev.idempotency.store.testing.TestDatabase;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

import java.nio.file.Path;
import java.sql.Connection;
import java.sql.Driver;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Properties;
import java.util.UUID;
import java.util.stream.Stream;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The effect hooks in the real JDBC drivers (woven as the transformer weaves them, in a class loader of their own) on
 * the real databases: what a keyed request's own transactions leave behind decides what its key means after a crash.
 * The "crash" is a request that never completes: its lease runs out.
 */
class EffectWatchTest {
    private static final Duration LEASE = Duration.ofMillis(400);
    @TempDir
    static Path directory;

    private final List<JdbcIdempotencyStore> stores = new ArrayList<>();
    private final String table = "fx_" + UUID.randomUUID().toString().replace("-", "").substring(0, 12);

    /** Database name, the store's URL, user, password, and the woven driver class. */
    static Stream<Arguments> databases() {
        TestDatabase postgres = TestDatabase.postgres();
        TestDatabase mariadb = TestDatabase.mariadb();
        return Stream.of(
                Arguments.of("h2", "jdbc:h2:file:" + directory.resolve("fx").toAbsolutePath() + ";AUTO_SERVER=TRUE;LOCK_TIMEOUT=10000", "sa", "", "org.h2.Driver"),
                Arguments.of("postgresql", postgres.url, postgres.user, postgres.password, "org.postgresql.Driver"),
                Arguments.of("mariadb", mariadb.url, mariadb.user, mariadb.password, "org.mariadb.jdbc.Driver"));
    }

    @BeforeAll
    static void watch() {
        EffectWatch.install();
    }

    @AfterAll
    static void unwatch() {
        EffectBridge.install(null);
    }

    /** One database of {@link #databases()}, by name. */
    private static Object[] database(String name) {
        return databases().filter(a -> a.get()[0].equals(name)).findFirst().get().get();
    }

    @AfterEach
    void closeStores() throws SQLException {
        RequestEffects.unwatchCurrentThread();
        stores.forEach(JdbcIdempotencyStore::close);
        for (JdbcIdempotencyStore store : stores) {
            StoreSettings settings = store.settings();
            try (Connection c = settings.user() == null ? java.sql.DriverManager.getConnection(settings.url())
                    : java.sql.DriverManager.getConnection(settings.url(), settings.user(), settings.password());
                 Statement s = c.createStatement()) {
                for (String t : new String[] {table + "_orders", table + "_more", table + "_effects", table + "_secret", table + "_schema", table}) {
                    s.execute("DROP TABLE IF EXISTS " + t);
                }
            }
        }
    }

    private JdbcIdempotencyStore store(String url, String user, String password) {
        JdbcIdempotencyStore store = JdbcIdempotencyStore.open(StoreSettings.builder().url(url).user(user).password(password).table(table)
                .lease(LEASE).expiredLeasePolicy(ExpiredLeasePolicy.TRANSACTION).connectTimeout(Duration.ofSeconds(15)).build());
        stores.add(store);
        store.checkSchema();
        return store;
    }

    /** A connection from the woven driver, as the application would get it. */
    private static Connection applicationConnection(String driverClass, String url, String user, String password) throws Exception {
        Driver driver = (Driver) WovenJar.of(driverClass).loadClass(driverClass).getConstructor().newInstance();
        Properties properties = new Properties();
        if (user != null) properties.setProperty("user", user);
        if (password != null) properties.setProperty("password", password);
        Connection connection = driver.connect(url, properties);
        assertTrue(connection.getClass().getClassLoader() instanceof WovenJar, "the connection is the woven driver's");
        return connection;
    }

    private void createOrders(Connection c) throws SQLException {
        try (Statement s = c.createStatement()) {
            s.execute("CREATE TABLE " + table + "_orders (id VARCHAR(64) PRIMARY KEY)");
        }
    }

    private static void insertOrder(Connection c, String table, String id) throws SQLException {
        try (PreparedStatement ps = c.prepareStatement("INSERT INTO " + table + "_orders (id) VALUES (?)")) {
            ps.setString(1, id);
            ps.executeUpdate();
        }
    }

    private long orders(Connection c) throws SQLException {
        try (Statement s = c.createStatement(); ResultSet rs = s.executeQuery("SELECT COUNT(*) FROM " + table + "_orders")) {
            rs.next();
            return rs.getLong(1);
        }
    }

    /** What a retry finds once the lease of a request that never completed ran out. */
    private static Reservation.Outcome afterCrash(JdbcIdempotencyStore store, String key) {
        return Await.until("the lease to run out", Duration.ofSeconds(10), () -> store.reserve("t", key, "fp").outcome(),
                o -> o != Reservation.Outcome.IN_FLIGHT);
    }

    private static RequestEffects request(JdbcIdempotencyStore store, Reservation reservation, String table) {
        return RequestEffects.watch(store, reservation.token(), table, "test request " + reservation.token().key());
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("databases")
    void aCommittedTransactionLeavesItsMarkInsideItAndTheKeyBecomesUnknown(String name, String url, String user, String password,
                                                                           String driver) throws Exception {
        JdbcIdempotencyStore store = store(url, user, password);
        try (Connection c = applicationConnection(driver, url, user, password)) {
            createOrders(c);
            Reservation owned = store.reserve("t", "committed", "fp");
            RequestEffects effects = request(store, owned, table);
            c.setAutoCommit(false);
            insertOrder(c, table, "order-1");
            c.commit();
            c.setAutoCommit(true);
            effects.close();
            assertTrue(effects.marked());
            assertEquals(Reservation.Outcome.OUTCOME_UNKNOWN, afterCrash(store, "committed"));
            KeyRecord record = store.find("t", "committed").get();
            assertEquals(EffectMark.Kind.COMMIT, record.effects().get(0).kind(), record.effects().toString());
            assertEquals(1, orders(c));
        }
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("databases")
    void aRolledBackTransactionAndReadsLeaveNothingAndTheKeyRunsAgain(String name, String url, String user, String password,
                                                                      String driver) throws Exception {
        JdbcIdempotencyStore store = store(url, user, password);
        try (Connection c = applicationConnection(driver, url, user, password)) {
            createOrders(c);
            Reservation owned = store.reserve("t", "rolled-back", "fp");
            RequestEffects effects = request(store, owned, table);
            c.setAutoCommit(false);
            insertOrder(c, table, "order-1");
            c.rollback();
            try (PreparedStatement ps = c.prepareStatement("SELECT COUNT(*) FROM " + table + "_orders"); ResultSet rs = ps.executeQuery()) {
                rs.next();
            }
            c.commit(); // a read-only transaction
            c.setAutoCommit(true);
            assertEquals(0, orders(c)); // an autocommit read
            effects.close();
            assertEquals(false, effects.marked());
            assertEquals(Reservation.Outcome.REACQUIRED, afterCrash(store, "rolled-back"));
        }
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("databases")
    void anAutocommitWriteIsMarkedBeforeItRuns(String name, String url, String user, String password, String driver) throws Exception {
        JdbcIdempotencyStore store = store(url, user, password);
        try (Connection c = applicationConnection(driver, url, user, password)) {
            createOrders(c);
            Reservation owned = store.reserve("t", "autocommit", "fp");
            RequestEffects effects = request(store, owned, table);
            insertOrder(c, table, "order-1");
            effects.close();
            assertEquals(Reservation.Outcome.OUTCOME_UNKNOWN, afterCrash(store, "autocommit"));
            assertEquals(EffectMark.Kind.WRITE, store.find("t", "autocommit").get().effects().get(0).kind());
        }
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("databases")
    void aRequestThatLostItsKeyCannotCommit(String name, String url, String user, String password, String driver) throws Exception {
        JdbcIdempotencyStore store = store(url, user, password);
        try (Connection c = applicationConnection(driver, url, user, password)) {
            createOrders(c);
            Reservation owned = store.reserve("t", "lost", "fp");
            RequestEffects effects = request(store, owned, table);
            c.setAutoCommit(false);
            insertOrder(c, table, "zombie-order");
            // The request stalls past its lease; a retry runs the work and takes the key over (the store's own
            // connections are not the woven driver's: nothing of this is watched).
            assertEquals(Reservation.Outcome.REACQUIRED, afterCrash(store, "lost"));
            SQLException refused = assertThrows(SQLException.class, c::commit);
            assertTrue(refused.getMessage().contains("no longer owns its idempotency key"), refused.getMessage());
            effects.close();
            c.commit(); // a pool committing on return, or an application committing again: nothing is left to commit
            c.setAutoCommit(true);
            assertEquals(0, orders(c), "the stalled request's work never committed");
        }
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("databases")
    void aWriteToAnotherDatabaseIsMarkedThroughTheStoreBeforeItRuns(String name, String url, String user, String password,
                                                                    String driver) throws Exception {
        JdbcIdempotencyStore store = store(url, user, password);
        String elsewhere = "jdbc:h2:mem:elsewhere-" + table + ";DB_CLOSE_DELAY=-1";
        try (Connection other = applicationConnection("org.h2.Driver", elsewhere, "sa", "")) {
            createOrders(other);
            Reservation owned = store.reserve("t", "elsewhere", "fp");
            RequestEffects effects = request(store, owned, table);
            other.setAutoCommit(false);
            insertOrder(other, table, "order-1");
            other.commit();
            effects.close();
            assertEquals(Reservation.Outcome.OUTCOME_UNKNOWN, afterCrash(store, "elsewhere"));
            EffectMark mark = store.find("t", "elsewhere").get().effects().get(0);
            assertEquals(EffectMark.Kind.EXTERNAL, mark.kind());
            assertTrue(mark.detail().startsWith("JDBC write to jdbc:h2:mem:elsewhere-"), mark.detail());
        }
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("databases")
    void connectionsOfThreadsWithoutAKeyedRequestAreLeftAlone(String name, String url, String user, String password,
                                                              String driver) throws Exception {
        JdbcIdempotencyStore store = store(url, user, password);
        try (Connection c = applicationConnection(driver, url, user, password)) {
            createOrders(c);
            Reservation owned = store.reserve("t", "elsewhere-thread", "fp");
            RequestEffects effects = request(store, owned, table);
            Thread other = new Thread(() -> {
                try (Connection d = applicationConnection(driver, url, user, password)) {
                    d.setAutoCommit(false);
                    insertOrder(d, table, "not-the-request");
                    d.commit();
                } catch (Exception e) {
                    throw new IllegalStateException(e);
                }
            });
            other.start();
            other.join();
            effects.close();
            assertEquals(1, orders(c));
            assertEquals(false, effects.marked());
            assertEquals(KeyStatus.IN_FLIGHT, store.find("t", "elsewhere-thread").get().status());
            assertTrue(store.find("t", "elsewhere-thread").get().effects().isEmpty());
        }
    }

    @org.junit.jupiter.params.ParameterizedTest(name = "{0}")
    @org.junit.jupiter.params.provider.ValueSource(strings = {"h2", "postgresql"})
    void anXaTransactionIsNotWatchedAndFallsBackToReconcile(String name) throws Exception {
        Object[] database = database(name);
        String url = (String) database[1];
        String user = (String) database[2];
        String password = (String) database[3];
        JdbcIdempotencyStore store = store(url, user, password);
        String dataSourceClass = "h2".equals(name) ? "org.h2.jdbcx.JdbcDataSource" : "org.postgresql.xa.PGXADataSource";
        Object dataSource = WovenJar.of("h2".equals(name) ? "org.h2.Driver" : "org.postgresql.Driver").loadClass(dataSourceClass)
                .getConstructor().newInstance();
        dataSource.getClass().getMethod("h2".equals(name) ? "setURL" : "setUrl", String.class).invoke(dataSource, url);
        if (user != null) dataSource.getClass().getMethod("setUser", String.class).invoke(dataSource, user);
        if (password != null) dataSource.getClass().getMethod("setPassword", String.class).invoke(dataSource, password);
        javax.sql.XAConnection xa = ((javax.sql.XADataSource) dataSource).getXAConnection();
        try {
            Reservation owned = store.reserve("t", "xa", "fp");
            RequestEffects effects = request(store, owned, table);
            javax.transaction.xa.Xid xid = new javax.transaction.xa.Xid() {
                @Override public int getFormatId() { return 4242; }
                @Override public byte[] getGlobalTransactionId() { return owned.token().token().getBytes(); }
                @Override public byte[] getBranchQualifier() { return new byte[] {1}; }
            };
            xa.getXAResource().start(xid, javax.transaction.xa.XAResource.TMNOFLAGS);
            xa.getXAResource().end(xid, javax.transaction.xa.XAResource.TMSUCCESS);
            xa.getXAResource().rollback(xid);
            effects.close();
            List<EffectMark> marks = store.find("t", "xa").get().effects();
            assertEquals(1, marks.size(), marks.toString());
            assertEquals(EffectMark.Kind.UNWATCHED, marks.get(0).kind());
            assertEquals("XA transaction", marks.get(0).detail());
            assertEquals(Reservation.Outcome.OUTCOME_UNKNOWN, afterCrash(store, "xa"), "it falls back to reconcile");
        } finally {
            xa.close();
        }
    }

    @org.junit.jupiter.params.ParameterizedTest(name = "{0}")
    @org.junit.jupiter.params.provider.ValueSource(strings = {"function", "several statements", "copy"})
    void onPostgresqlAWriteTheStatementTextHidesIsStillMarked(String how) throws Exception {
        Object[] database = database("postgresql");
        String url = (String) database[1];
        String user = (String) database[2];
        String password = (String) database[3];
        JdbcIdempotencyStore store = store(url, user, password);
        try (Connection c = applicationConnection("org.postgresql.Driver", url, user, password)) {
            createOrders(c);
            try (Statement s = c.createStatement()) {
                s.execute("CREATE FUNCTION " + table + "_place(id VARCHAR) RETURNS INTEGER AS $$ INSERT INTO " + table
                        + "_orders (id) VALUES (id) RETURNING 1 $$ LANGUAGE SQL");
            }
            Reservation owned = store.reserve("t", how, "fp");
            RequestEffects effects = request(store, owned, table);
            c.setAutoCommit(false);
            try (Statement s = c.createStatement()) {
                switch (how) {
                    case "function":
                        s.executeQuery("SELECT " + table + "_place('order-1')").close();
                        break;
                    case "several statements":
                        s.execute("SET LOCAL lock_timeout = '5s'; INSERT INTO " + table + "_orders (id) VALUES ('order-1')");
                        break;
                    default:
                        Object copy = c.getClass().getMethod("getCopyAPI").invoke(c);
                        copy.getClass().getMethod("copyIn", String.class, java.io.Reader.class).invoke(copy,
                                "COPY " + table + "_orders (id) FROM STDIN", new java.io.StringReader("order-1\n"));
                }
            }
            c.commit();
            c.setAutoCommit(true);
            effects.close();
            assertEquals(1, orders(c));
            assertEquals(Reservation.Outcome.OUTCOME_UNKNOWN, afterCrash(store, how), "the committed write was marked");
            try (Statement s = c.createStatement()) {
                s.execute("DROP FUNCTION " + table + "_place(VARCHAR)");
            }
        }
    }

    @org.junit.jupiter.params.ParameterizedTest(name = "{0}")
    @org.junit.jupiter.params.provider.ValueSource(strings = {"START TRANSACTION", "LOCK TABLES %s_orders WRITE", "CREATE TABLE %s_more (id INT)"})
    void onMariadbAStatementThatCommitsImplicitlyMarksWhatIsOpen(String statement) throws Exception {
        Object[] database = database("mariadb");
        String url = (String) database[1];
        String user = (String) database[2];
        String password = (String) database[3];
        JdbcIdempotencyStore store = store(url, user, password);
        try (Connection c = applicationConnection("org.mariadb.jdbc.Driver", url, user, password)) {
            createOrders(c);
            String key = statement.split(" ")[0];
            Reservation owned = store.reserve("t", key, "fp");
            RequestEffects effects = request(store, owned, table);
            c.setAutoCommit(false);
            insertOrder(c, table, "order-1");
            try (Statement s = c.createStatement()) {
                s.execute(String.format(statement, table));
            }
            effects.close(); // the request dies here: what the statement committed stays
            try (Statement s = c.createStatement()) {
                s.execute("UNLOCK TABLES");
            }
            c.rollback();
            c.setAutoCommit(true);
            assertEquals(1, orders(c), "the statement committed the order");
            assertEquals(Reservation.Outcome.OUTCOME_UNKNOWN, afterCrash(store, key));
            try (Statement s = c.createStatement()) {
                s.execute("DROP TABLE IF EXISTS " + table + "_more");
            }
        }
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("databases")
    void aCommitThroughHikariCpOrC3p0IsSeenAtTheDriverBeneathThePool(String name, String url, String user, String password,
                                                                      String driver) throws Exception {
        JdbcIdempotencyStore store = store(url, user, password);
        String vendorClass = "h2".equals(name) ? "org.h2.jdbcx.JdbcDataSource" : "postgresql".equals(name)
                ? "org.postgresql.ds.PGSimpleDataSource" : "org.mariadb.jdbc.MariaDbDataSource";
        Object vendor = WovenJar.of(driver).loadClass(vendorClass).getConstructor().newInstance();
        for (String setter : new String[] {"setURL", "setUrl"}) {
            try {
                vendor.getClass().getMethod(setter, String.class).invoke(vendor, url);
                break;
            } catch (NoSuchMethodException other) {
                // the vendor's spelling is the other one
            }
        }
        if (user != null) vendor.getClass().getMethod("setUser", String.class).invoke(vendor, user);
        if (password != null) vendor.getClass().getMethod("setPassword", String.class).invoke(vendor, password);
        com.zaxxer.hikari.HikariConfig config = new com.zaxxer.hikari.HikariConfig();
        config.setDataSource((javax.sql.DataSource) vendor);
        config.setMaximumPoolSize(2);
        javax.sql.DataSource c3p0 = com.mchange.v2.c3p0.DataSources.pooledDataSource((javax.sql.DataSource) vendor);
        try (com.zaxxer.hikari.HikariDataSource hikari = new com.zaxxer.hikari.HikariDataSource(config)) {
            try (Connection c = hikari.getConnection()) {
                createOrders(c);
            }
            for (javax.sql.DataSource pool : new javax.sql.DataSource[] {hikari, c3p0}) {
                String key = pool == hikari ? "hikari" : "c3p0";
                Reservation owned = store.reserve("t", key, "fp");
                RequestEffects effects = request(store, owned, table);
                try (Connection c = pool.getConnection()) {
                    assertTrue(c.getClass().getName().toLowerCase(java.util.Locale.ROOT).contains(pool == hikari ? "hikari" : "c3p0"),
                            "the application holds the pool's proxy: " + c.getClass());
                    c.setAutoCommit(false);
                    insertOrder(c, table, "order-" + key);
                    c.commit();
                    c.setAutoCommit(true);
                }
                effects.close();
                assertEquals(Reservation.Outcome.OUTCOME_UNKNOWN, afterCrash(store, key), key);
                assertEquals(EffectMark.Kind.COMMIT, store.find("t", key).get().effects().get(0).kind(), key);
            }
        } finally {
            com.mchange.v2.c3p0.DataSources.destroy(c3p0);
        }
    }

    /** What the application sees on PostgreSQL is what it would see without the agent, and a commit is marked once. */
    @org.junit.jupiter.api.Test
    void onPostgresqlFailedAndReadOnlyTransactionsCommitAsWithoutTheAgentAndAMarkIsWrittenOnce() throws Exception {
        Object[] database = database("postgresql");
        String url = (String) database[1];
        String user = (String) database[2];
        String password = (String) database[3];
        JdbcIdempotencyStore store = store(url, user, password);
        try (Connection c = applicationConnection("org.postgresql.Driver", url, user, password)) {
            createOrders(c);
            PreparedStatement cached = c.prepareStatement("SELECT COUNT(*) FROM " + table + "_orders"); // as a statement cache would
            Reservation owned = store.reserve("t", "pg", "fp");
            RequestEffects effects = request(store, owned, table);

            c.setAutoCommit(false); // a failed transaction: its COMMIT rolls back, quietly, as without the agent
            try (Statement s = c.createStatement()) {
                assertThrows(SQLException.class, () -> s.execute("SELECT no_such_column FROM " + table + "_orders"));
            }
            c.commit();
            c.setReadOnly(true); // a read-only transaction with a statement whose text is unknown: it cannot write, and commits
            cached.executeQuery().close();
            c.commit();
            c.setReadOnly(false);
            insertOrder(c, table, "order-1"); // then a write, committed by turning autocommit back on, as Spring does
            c.setAutoCommit(true);
            effects.close();
            assertEquals(1, orders(c));
            List<EffectMark> marks = store.find("t", "pg").get().effects();
            assertEquals(1, marks.size(), "one mark for one committed transaction: " + marks);
            assertEquals(EffectMark.Kind.COMMIT, marks.get(0).kind());
        }
    }
}
