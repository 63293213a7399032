package dev.idempotency.agent.core.instrument.effects;

import java.util.HashMap;
import java.util.Map;

/**
 * The classes that get effect hooks, by name: the connections and statements of the JDBC drivers for the databases
 * the store supports (so that the agent sees commits of the store's own database, whatever pool hands the connection
 * out: pools call the driver), their XA resources (whose commit it cannot see), and the outbound HTTP clients whose
 * calls cannot be part of a transaction. Named, not matched by interface: a pool's wrapper must not be mistaken for
 * the driver, and nothing else pays for the lookup.
 */
public final class EffectHooks {

    public enum Role {
        /** commit, setAutoCommit, rollback, prepareStatement and prepareCall. */
        CONNECTION,
        /** execute, executeQuery, executeUpdate, executeLargeUpdate, executeBatch, executeLargeBatch. */
        STATEMENT,
        /** start(Xid, int). */
        XA_RESOURCE,
        /** The JDK's HttpURLConnection: connect, getOutputStream, getInputStream. */
        JDK_URL_CONNECTION,
        /** The JDK's HttpClient (11+): send and sendAsync; the request is their first argument. */
        JDK_HTTP_CLIENT,
        /** Apache HttpClient 4 and 5 (classic): doExecute; the request is its second argument. */
        APACHE_HTTP_CLIENT,
        /** OkHttp 3 and 4: a call's execute and enqueue. */
        OKHTTP_CALL,
        /** A JMS message producer (any implementation of MessageProducer or JMSProducer, javax or jakarta): send. */
        JMS_PRODUCER;

        /** An outbound HTTP client's role: hooked also when only derived keys are configured. */
        boolean isHttp() {
            return this == JDK_URL_CONNECTION || this == JDK_HTTP_CLIENT || this == APACHE_HTTP_CLIENT || this == OKHTTP_CALL;
        }
    }

    /** The JMS interfaces whose implementations send messages: found by their super types, the brokers' clients being many. */
    static final java.util.Set<String> JMS_PRODUCERS = new java.util.HashSet<>(java.util.Arrays.asList("javax/jms/MessageProducer",
            "javax/jms/JMSProducer", "jakarta/jms/MessageProducer", "jakarta/jms/JMSProducer"));

    private static final Map<String, Role> ROLES = new HashMap<>();

    static {
        roles(Role.CONNECTION, "org/postgresql/jdbc/PgConnection", "org/mariadb/jdbc/Connection", "org/mariadb/jdbc/MariaDbConnection",
                "com/mysql/cj/jdbc/ConnectionImpl", "org/h2/jdbc/JdbcConnection");
        roles(Role.STATEMENT, "org/postgresql/jdbc/PgStatement", "org/postgresql/jdbc/PgPreparedStatement",
                "org/postgresql/jdbc/PgCallableStatement",
                "org/mariadb/jdbc/Statement", "org/mariadb/jdbc/BasePreparedStatement", "org/mariadb/jdbc/ClientPreparedStatement",
                "org/mariadb/jdbc/ServerPreparedStatement", "org/mariadb/jdbc/BaseCallableStatement",
                "org/mariadb/jdbc/MariaDbStatement", "org/mariadb/jdbc/BasePrepareStatement",
                "org/mariadb/jdbc/ClientSidePreparedStatement", "org/mariadb/jdbc/ServerSidePreparedStatement",
                "com/mysql/cj/jdbc/StatementImpl", "com/mysql/cj/jdbc/ClientPreparedStatement", "com/mysql/cj/jdbc/ServerPreparedStatement",
                "com/mysql/cj/jdbc/CallableStatement",
                "org/h2/jdbc/JdbcStatement", "org/h2/jdbc/JdbcPreparedStatement", "org/h2/jdbc/JdbcCallableStatement");
        roles(Role.XA_RESOURCE, "org/postgresql/xa/PGXAConnection", "org/mariadb/jdbc/MariaDbXaResource",
                "org/mariadb/jdbc/MariaDbPoolConnection$MariaDbXAResource", "com/mysql/cj/jdbc/MysqlXAConnection",
                "com/mysql/cj/jdbc/SuspendableXAConnection", "org/h2/jdbcx/JdbcXAConnection");
        roles(Role.JDK_URL_CONNECTION, "sun/net/www/protocol/http/HttpURLConnection");
        roles(Role.JDK_HTTP_CLIENT, "jdk/internal/net/http/HttpClientImpl");
        roles(Role.APACHE_HTTP_CLIENT, "org/apache/http/impl/client/InternalHttpClient", "org/apache/http/impl/client/MinimalHttpClient",
                "org/apache/http/impl/client/AbstractHttpClient",
                "org/apache/hc/client5/http/impl/classic/InternalHttpClient", "org/apache/hc/client5/http/impl/classic/MinimalHttpClient");
        roles(Role.OKHTTP_CALL, "okhttp3/RealCall", "okhttp3/internal/connection/RealCall");
    }

    private EffectHooks() {
    }

    private static void roles(Role role, String... internalNames) {
        for (String name : internalNames) ROLES.put(name, role);
    }

    /** The role of a class by its internal name; null for every class that gets no hooks. */
    public static Role roleOf(String internalName) {
        return ROLES.get(internalName);
    }
}
