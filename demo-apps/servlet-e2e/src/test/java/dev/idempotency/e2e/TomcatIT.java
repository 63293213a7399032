package dev.idempotency.e2e;

import dev.idempotency.e2e.scenarios.JaxrsOrdersScenarios;
import dev.idempotency.e2e.scenarios.LegacyScenarios;
import dev.idempotency.e2e.scenarios.OrdersScenarios;
import dev.idempotency.e2e.scenarios.PaymentsScenarios;
import dev.idempotency.e2e.scenarios.SpringTransparencyChecks;
import dev.idempotency.e2e.servers.OrdersServers;
import dev.idempotency.e2e.servers.ServerProcess;
import dev.idempotency.e2e.servers.TomcatServer;
import dev.idempotency.e2e.support.Client;
import dev.idempotency.e2e.support.E2eEnvironment;
import dev.idempotency.store.redis.RedisTestServer;
import dev.idempotency.store.testing.TestDatabase;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.Statement;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertTrue;

/** Stock Tomcat 9, 10 and 11 running the payments, legacy-shop, Jersey and Spring MVC WARs, on each store and JDK row. One nested class per row. */
public class TomcatIT {
    /**
     * Tomcat 9 (javax) on a standalone Redis server ({@code IDEMPOTENCY_TEST_REDIS_URL}, else one of the test's own from
     * the installed redis-server), under a key prefix of its own.
     */
    @Nested
    class Tomcat9Redis extends PaymentsScenarios {
        @Override
        protected ServerProcess server() throws Exception {
            return TomcatServer.tomcat9().set("idempotency.store.url", RedisTestServer.url())
                    .set("idempotency.store.table", RedisTestServer.randomPrefix());
        }
    }

    /** The legacy shop on Tomcat 9, on Redis as above. */
    @Nested
    class LegacyTomcat9Redis extends LegacyScenarios {
        @Override
        protected ServerProcess server() throws Exception {
            return TomcatServer.legacyTomcat9().set("idempotency.store.url", RedisTestServer.url())
                    .set("idempotency.store.table", RedisTestServer.randomPrefix());
        }
    }

    /** Tomcat 9 (javax), the embedded H2 default store: no store settings at all. */
    @Nested
    class Tomcat9H2 extends PaymentsScenarios {
        @Override
        protected ServerProcess server() throws Exception {
            return TomcatServer.tomcat9();
        }
    }

    /** Tomcat 9 (javax) on OpenJDK 8 (Debian sid's, beside sid's C library), the embedded H2 default store. */
    @Nested
    class Tomcat9Jdk8 extends PaymentsScenarios {
        @Override
        protected boolean restartProvenByAnotherRow() {
            return true; // Tomcat9H2
        }

        @Override
        protected ServerProcess server() throws Exception {
            return TomcatServer.tomcat9().javaHome(E2eEnvironment.jdk8());
        }

        @org.junit.jupiter.api.Test
        public void theServerRunsOnJava8() throws Exception {
            TomcatServer.assertRunsOnJava(server, 8);
        }
    }

    /** Tomcat 9 (javax) on OpenJDK 11, the embedded H2 default store. */
    @Nested
    class Tomcat9Jdk11 extends PaymentsScenarios {
        @Override
        protected boolean restartProvenByAnotherRow() {
            return true; // Tomcat9H2
        }

        @Override
        protected ServerProcess server() throws Exception {
            return TomcatServer.tomcat9().javaHome(E2eEnvironment.jdk11());
        }

        @org.junit.jupiter.api.Test
        public void theServerRunsOnJava11() throws Exception {
            TomcatServer.assertRunsOnJava(server, 11);
        }
    }

    /** Tomcat 9 (javax) on the Temurin 25 JDK, the embedded H2 default store. */
    @Nested
    class Tomcat9Jdk25 extends PaymentsScenarios {
        @Override
        protected boolean restartProvenByAnotherRow() {
            return true; // Tomcat9H2
        }

        @Override
        protected ServerProcess server() throws Exception {
            return TomcatServer.tomcat9().javaHome(E2eEnvironment.jdk25());
        }
    }

    /** Tomcat 10.1 (jakarta), the embedded H2 default store. */
    @Nested
    class Tomcat10H2 extends PaymentsScenarios {
        @Override
        protected ServerProcess server() throws Exception {
            return TomcatServer.tomcat10();
        }
    }

    /**
     * Tomcat 11 (Servlet 6.1, jakarta), the embedded H2 default store. Tomcat 11 suspends a wrapped response after a
     * forward by default: the forward scenario proves the agent still sends what the forward wrote. Servlet 6.1's
     * sendRedirect(String, int) is kept like the classic one.
     */
    @Nested
    class Tomcat11H2 extends PaymentsScenarios {
        @Override
        protected boolean restartProvenByAnotherRow() {
            return true; // Tomcat10H2
        }

        @Override
        protected ServerProcess server() throws Exception {
            return TomcatServer.tomcat11();
        }

        @Override
        protected boolean servlet61() {
            return true;
        }
    }

    /** Tomcat 9 (javax) on OpenJDK 11 with the PostgreSQL store. */
    @Nested
    class Tomcat9PostgresJdk11 extends PaymentsScenarios {
        @Override
        protected boolean restartProvenByAnotherRow() {
            return true; // Tomcat9PostgresIT
        }

        private final String table = "e2e_jdk11_" + Long.toHexString(System.nanoTime());

        @Override
        protected ServerProcess server() throws Exception {
            TestDatabase db = TestDatabase.postgres();
            ServerProcess tomcat = TomcatServer.tomcat9().javaHome(E2eEnvironment.jdk11())
                    .set("idempotency.store.url", db.url)
                    .set("idempotency.store.table", table);
            if (db.user != null) tomcat.set("idempotency.store.user", db.user).set("idempotency.store.password", db.password);
            return tomcat;
        }

        @org.junit.jupiter.api.Test
        public void theServerRunsOnJava11() throws Exception {
            TomcatServer.assertRunsOnJava(server, 11);
        }
    }

    /** The whole servlet suite on stock Tomcat 9 with the key table in PostgreSQL time partitions (hourly). */
    @Nested
    class Tomcat9PartitionedPostgres extends PaymentsScenarios {
        private TestDatabase db;
        private final String table = "e2e_parts_" + Long.toHexString(System.nanoTime());

        @Override
        protected ServerProcess server() throws Exception {
            db = TestDatabase.postgres();
            ServerProcess tomcat = TomcatServer.tomcat9()
                    .set("idempotency.store.url", db.url)
                    .set("idempotency.store.table", table)
                    .set("idempotency.store.partitioning", "hourly");
            if (db.user != null) tomcat.set("idempotency.store.user", db.user).set("idempotency.store.password", db.password);
            return tomcat;
        }

        @AfterAll
        public void dropTable() throws Exception {
            if (db == null) return;
            try (Connection c = DriverManager.getConnection(db.url, db.user, db.password); Statement s = c.createStatement()) {
                PartitionedPurgeTomcat9IT.dropPartitionedTable(s, table);
            }
        }
    }

    /** The legacy shop on Tomcat 9 (javax), the embedded H2 default store. */
    @Nested
    class LegacyTomcat9 extends LegacyScenarios {
        @Override
        protected ServerProcess server() throws Exception {
            return TomcatServer.legacyTomcat9();
        }
    }

    /**
     * The legacy shop on Tomcat 9 with the MariaDB store ({@code IDEMPOTENCY_TEST_MARIADB_URL}, else Testcontainers, else
     * skipped, or failed under {@code -Didempotency.test.require-databases=true}). MariaDB's default collations compare
     * strings PAD SPACE, so this is where {@code "abc "} and {@code "abc"} must still be two keys
     * ({@link #aKeyWithATrailingSpaceIsAnotherKey()}).
     */
    @Nested
    class LegacyTomcat9MariaDb extends LegacyScenarios {
        @Override
        protected ServerProcess server() throws Exception {
            TestDatabase db = TestDatabase.mariadb();
            ServerProcess tomcat = TomcatServer.legacyTomcat9()
                    .set("idempotency.store.url", db.url)
                    .set("idempotency.store.table", "e2e_keys_" + Long.toHexString(System.nanoTime()));
            if (db.user != null) tomcat.set("idempotency.store.user", db.user).set("idempotency.store.password", db.password);
            return tomcat;
        }
    }

    /**
     * The same row with the store's MariaDB Connector/J loaded from a jar the operator names
     * ({@code idempotency.store.driver-path}: here the connector's jar of the tests' class path) instead of the one the
     * agent bundles: the licence page's replacement, end to end.
     */
    @Nested
    class LegacyTomcat9MariaDbDriverPath extends LegacyScenarios {
        @Override
        protected ServerProcess server() throws Exception {
            TestDatabase db = TestDatabase.mariadb();
            String connector = java.nio.file.Path.of(org.mariadb.jdbc.Driver.class.getProtectionDomain().getCodeSource().getLocation().toURI())
                    .toString();
            ServerProcess tomcat = TomcatServer.legacyTomcat9()
                    .set("idempotency.store.url", db.url)
                    .set("idempotency.store.driver-path", connector)
                    .set("idempotency.store.table", "e2e_keys_" + Long.toHexString(System.nanoTime()));
            if (db.user != null) tomcat.set("idempotency.store.user", db.user).set("idempotency.store.password", db.password);
            return tomcat;
        }

        @Test
        void theStartUpLineNamesTheDriverPath() throws Exception {
            String lines = server.agentLines();
            assertTrue(lines.contains("store.driver-path=") && lines.contains("mariadb-java-client"), lines);
        }
    }

    /** The legacy shop relocated to jakarta on Tomcat 10.1, the embedded H2 default store. */
    @Nested
    class LegacyTomcat10 extends LegacyScenarios {
        @Override
        protected ServerProcess server() throws Exception {
            return TomcatServer.legacyTomcat10();
        }
    }

    /** The legacy shop relocated to jakarta on Tomcat 11 (Servlet 6.1), the embedded H2 default store. */
    @Nested
    class LegacyTomcat11 extends LegacyScenarios {
        @Override
        protected ServerProcess server() throws Exception {
            return TomcatServer.legacyTomcat11();
        }
    }

    /** Jersey 2 (javax) WAR on Tomcat 9. */
    @Nested
    class Jersey2Tomcat9 extends JaxrsOrdersScenarios {
        @Override
        protected ServerProcess server() throws Exception {
            return OrdersServers.onTomcat(E2eEnvironment.tomcat9(), "orders-jersey2.war");
        }
    }

    /** Jersey 2 (javax) WAR on Tomcat 9, on OpenJDK 8 (Debian sid's, beside sid's C library). */
    @Nested
    class Jersey2Tomcat9Jdk8 extends JaxrsOrdersScenarios {
        @Override
        protected boolean restartProvenByAnotherRow() {
            return true; // Jersey2Tomcat9
        }

        @Override
        protected ServerProcess server() throws Exception {
            return OrdersServers.onTomcat(E2eEnvironment.tomcat9(), "orders-jersey2.war").javaHome(E2eEnvironment.jdk8());
        }

        @org.junit.jupiter.api.Test
        public void theServerRunsOnJava8() throws Exception {
            TomcatServer.assertRunsOnJava(server, 8);
        }
    }

    /** Jersey 2 (javax) WAR on Tomcat 9, on OpenJDK 11. */
    @Nested
    class Jersey2Tomcat9Jdk11 extends JaxrsOrdersScenarios {
        @Override
        protected boolean restartProvenByAnotherRow() {
            return true; // Jersey2Tomcat9
        }

        @Override
        protected ServerProcess server() throws Exception {
            return OrdersServers.onTomcat(E2eEnvironment.tomcat9(), "orders-jersey2.war").javaHome(E2eEnvironment.jdk11());
        }

        @org.junit.jupiter.api.Test
        public void theServerRunsOnJava11() throws Exception {
            TomcatServer.assertRunsOnJava(server, 11);
        }
    }

    /** Jersey 2 (javax) WAR on Tomcat 9, on the Temurin 25 JDK. */
    @Nested
    class Jersey2Tomcat9Jdk25 extends JaxrsOrdersScenarios {
        @Override
        protected boolean restartProvenByAnotherRow() {
            return true; // Jersey2Tomcat9
        }

        @Override
        protected ServerProcess server() throws Exception {
            return OrdersServers.onTomcat(E2eEnvironment.tomcat9(), "orders-jersey2.war").javaHome(E2eEnvironment.jdk25());
        }
    }

    /** Jersey 3 (jakarta) WAR on Tomcat 10.1. */
    @Nested
    class Jersey3Tomcat10 extends JaxrsOrdersScenarios {
        @Override
        protected boolean restartProvenByAnotherRow() {
            return true; // Jersey2Tomcat9 and Tomcat10H2
        }

        @Override
        protected ServerProcess server() throws Exception {
            return OrdersServers.onTomcat(E2eEnvironment.tomcat10(), "orders-jersey3.war");
        }
    }

    /** Spring MVC 5 (javax) WAR, DispatcherServlet in web.xml, on Tomcat 9. */
    @Nested
    class SpringMvcTomcat9 extends OrdersScenarios implements SpringTransparencyChecks {
        @Override
        protected ServerProcess server() throws Exception {
            return OrdersServers.onTomcat(E2eEnvironment.tomcat9(), "orders-spring-mvc.war");
        }

        @org.junit.jupiter.api.Test
        public void aViewsAnswerIsTheUnkeyedOneAndItsRetryReplaysIt() throws Exception {
            assertTransparent("view");
        }

        @Override
        public Client client() {
            return client;
        }
    }

    /** Spring MVC 5 (javax) WAR on Tomcat 9, on the Temurin 25 JDK. */
    @Nested
    class SpringMvcTomcat9Jdk25 extends OrdersScenarios {
        @Override
        protected boolean restartProvenByAnotherRow() {
            return true; // SpringMvcTomcat9
        }

        @Override
        protected ServerProcess server() throws Exception {
            return OrdersServers.onTomcat(E2eEnvironment.tomcat9(), "orders-spring-mvc.war").javaHome(E2eEnvironment.jdk25());
        }
    }
}
