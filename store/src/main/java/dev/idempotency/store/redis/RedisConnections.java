package dev.idempotency.store.redis;

import dev.idempotency.store.OwnershipToken;
import dev.idempotency.store.StoreDataException;
import dev.idempotency.store.StoreException;
import dev.idempotency.store.StoreSettings;
import dev.idempotency.store.StoreUnavailableException;
import org.apache.commons.pool2.impl.GenericObjectPoolConfig;
import redis.clients.jedis.DefaultJedisClientConfig;
import redis.clients.jedis.HostAndPort;
import redis.clients.jedis.Jedis;
import redis.clients.jedis.JedisClientConfig;
import redis.clients.jedis.JedisPool;
import redis.clients.jedis.JedisSentinelPool;
import redis.clients.jedis.exceptions.JedisConnectionException;
import redis.clients.jedis.exceptions.JedisDataException;
import redis.clients.jedis.exceptions.JedisException;
import redis.clients.jedis.util.Pool;

import javax.net.ssl.SSLParameters;
import java.net.SocketTimeoutException;
import java.time.Duration;
import java.util.LinkedHashSet;
import java.util.Set;

/**
 * The store's connections: a request pool of {@code pool-size} and a background pool of two (heartbeat renewals,
 * sweep, purge, operators), so a busy request path never starves the heartbeat. Connecting waits at most the connect
 * timeout, for a free connection too; a command's answer at most the query timeout. Every client failure becomes a
 * {@link StoreException}: {@link StoreUnavailableException} when the server is away, slow or refusing writes.
 */
final class RedisConnections implements AutoCloseable {
    private static final int BACKGROUND_POOL_SIZE = 2;

    /** Work on one connection. */
    interface Work<T> {
        T on(Jedis redis);
    }

    /** Work that answers differently when it is sent again after its connection broke ({@code repeated}). */
    interface RepeatableWork<T> {
        T on(Jedis redis, boolean repeated);
    }

    /** A connection the server closed (not one that timed out): internal to {@link #run}. */
    private static final class BrokenConnection extends RuntimeException {
        private static final long serialVersionUID = 1L;

        BrokenConnection(JedisConnectionException cause) {
            super(cause);
        }
    }

    private final RedisEndpoint endpoint;
    private final Pool<Jedis> requests;
    private final Pool<Jedis> background;

    RedisConnections(RedisEndpoint endpoint, StoreSettings settings) {
        this.endpoint = endpoint;
        JedisClientConfig client = clientConfig(endpoint, settings.connectTimeout(), settings.queryTimeout());
        this.requests = pool(endpoint, settings.poolSize(), settings, client);
        try {
            this.background = pool(endpoint, BACKGROUND_POOL_SIZE, settings, client);
        } catch (RuntimeException e) {
            requests.close();
            throw e;
        }
    }

    /**
     * A pool of connections to the server, or to the master the sentinels name now: such a pool follows the sentinels'
     * announcements of a new master and then drops the connections to the old one. Asking the sentinels happens here,
     * so a store whose sentinels all fail to answer does not open.
     */
    private static Pool<Jedis> pool(RedisEndpoint endpoint, int size, StoreSettings settings,
            JedisClientConfig client) {
        GenericObjectPoolConfig<Jedis> config = poolConfig(size, settings.connectTimeout());
        if (!endpoint.viaSentinel()) {
            return new JedisPool(config, new HostAndPort(endpoint.host, endpoint.port), client);
        }
        Set<HostAndPort> sentinels = new LinkedHashSet<>();
        for (String[] s : endpoint.sentinels) sentinels.add(new HostAndPort(s[0], Integer.parseInt(s[1])));
        // Sentinels are asked without the master's credentials or database: they have their own, and no databases.
        DefaultJedisClientConfig.Builder asking = DefaultJedisClientConfig.builder()
                .connectionTimeoutMillis((int) settings.connectTimeout().toMillis())
                .socketTimeoutMillis((int) settings.queryTimeout().toMillis()).clientName("idempotency-store");
        if (endpoint.tls) asking.ssl(true).sslParameters(checkedHostName());
        try {
            return new JedisSentinelPool(endpoint.masterName, sentinels, config, client, asking.build());
        } catch (JedisException e) {
            throw new StoreUnavailableException("idempotency store (" + endpoint + ") unavailable: no sentinel named "
                    + "the master '" + endpoint.masterName + "': " + describe(e), e);
        }
    }

    private static SSLParameters checkedHostName() {
        SSLParameters checked = new SSLParameters();
        checked.setEndpointIdentificationAlgorithm("HTTPS"); // the certificate must name the host we asked for
        return checked;
    }

    static JedisClientConfig clientConfig(RedisEndpoint endpoint, Duration connectTimeout, Duration queryTimeout) {
        DefaultJedisClientConfig.Builder b = DefaultJedisClientConfig.builder()
                .connectionTimeoutMillis((int) connectTimeout.toMillis())
                .socketTimeoutMillis((int) queryTimeout.toMillis())
                .database(endpoint.database).user(endpoint.user).password(endpoint.password)
                .clientName("idempotency-store");
        if (endpoint.tls) b.ssl(true).sslParameters(checkedHostName());
        return b.build();
    }

    private static GenericObjectPoolConfig<Jedis> poolConfig(int size, Duration connectTimeout) {
        GenericObjectPoolConfig<Jedis> config = new GenericObjectPoolConfig<>();
        config.setMaxTotal(size);
        config.setMaxIdle(size);
        config.setMinIdle(0);
        config.setBlockWhenExhausted(true);
        config.setMaxWait(connectTimeout);
        // several stores in one JVM (and the agent's isolated loader) must not clash on names
        config.setJmxEnabled(false);
        return config;
    }

    <T> T request(String operation, Work<T> work) {
        return run(requests, operation, null, (redis, repeated) -> work.on(redis));
    }

    <T> T request(String operation, RepeatableWork<T> work) {
        return run(requests, operation, null, work);
    }

    /**
     * A write that may give {@code token} a key: if its answer is lost, the failure carries the token
     * ({@link StoreUnavailableException#possiblyReserved()}).
     */
    <T> T reserving(OwnershipToken token, Work<T> work) {
        return run(requests, "reserve", token, (redis, repeated) -> work.on(redis));
    }

    <T> T background(String operation, Work<T> work) {
        return run(background, operation, null, (redis, repeated) -> work.on(redis));
    }

    int requestConnectionsInUse() {
        return requests.getNumActive();
    }

    /**
     * Once, and once more on a new connection when the server had closed the one lent (a restart, a failover, an idle
     * timeout, {@code CLIENT KILL}): the pool's other idle connections are then most likely closed too, and are
     * dropped, so that one failure costs one retry, not one 503 per pooled connection. A connection that timed out is
     * not retried: the server may be busy, and the caller must hear so within the query timeout. The work is sent
     * again with {@code repeated} set: a reservation then finds its own token, a completion its own response.
     */
    private <T> T run(Pool<Jedis> pool, String operation, OwnershipToken writing, RepeatableWork<T> work) {
        try {
            return attempt(pool, operation, writing, work, false);
        } catch (BrokenConnection broken) {
            pool.clear();
            try {
                return attempt(pool, operation, writing, work, true);
            } catch (BrokenConnection again) {
                throw unavailable(operation, (JedisException) again.getCause(), writing);
            } catch (StoreUnavailableException e) {
                // The first sending may have gone in, whatever became of the second (no connection, a refusal).
                if (writing == null || e.possiblyReserved() != null) throw e;
                throw new StoreUnavailableException(e.getMessage(), e.getCause(), writing);
            }
        }
    }

    private <T> T attempt(Pool<Jedis> pool, String operation, OwnershipToken writing, RepeatableWork<T> work,
            boolean repeated) {
        Jedis redis;
        try {
            redis = pool.getResource();
        } catch (JedisException e) {
            throw new StoreUnavailableException("idempotency store (" + endpoint + ") unavailable: cannot connect for "
                    + operation + ": " + describe(e), e);
        }
        try (Jedis borrowed = redis) {
            return work.on(borrowed, repeated);
        } catch (JedisDataException e) {
            throw refused(operation, e);
        } catch (JedisConnectionException e) {
            if (!timedOut(e)) throw new BrokenConnection(e);
            throw unavailable(operation, e, writing);
        } catch (JedisException e) {
            throw unavailable(operation, e, writing);
        }
    }

    /** Sent, and no answer (timeout, broken connection): the write may have happened. */
    private StoreUnavailableException unavailable(String operation, JedisException e, OwnershipToken writing) {
        return new StoreUnavailableException("idempotency store (" + endpoint + ") unavailable during " + operation
                + ": " + describe(e), e, writing);
    }

    private static boolean timedOut(Throwable e) {
        for (Throwable c = e; c != null; c = c.getCause() == c ? null : c.getCause()) {
            if (c instanceof SocketTimeoutException) return true;
        }
        return false;
    }

    /** The server answered with an error: nothing was written (a script's error aborts it before any write). */
    private StoreException refused(String operation, JedisDataException e) {
        String message = String.valueOf(e.getMessage());
        String code = message.contains(" ") ? message.substring(0, message.indexOf(' ')) : message;
        switch (code) {
            case "OOM": // maxmemory reached under noeviction: writes refused until memory is freed
            case "READONLY": // a replica, or a master demoted by a failover
            case "LOADING":
            case "BUSY":
            case "MASTERDOWN":
            case "MISCONF": // persistence failing with stop-writes-on-bgsave-error
            case "NOREPLICAS": // min-replicas-to-write unmet
            case "CLUSTERDOWN":
            case "TRYAGAIN":
            case "NOAUTH":
            case "WRONGPASS":
            case "NOPERM":
                return new StoreUnavailableException("idempotency store (" + endpoint + ") refused " + operation
                        + ": " + message, e);
            default:
                return new StoreDataException("idempotency store (" + endpoint + ") failed " + operation + ": "
                        + message
                        + " (a key of another shape under the store's prefix?)", e);
        }
    }

    /** The failure and those of its causes that add something (clients often repeat a cause's message as their own). */
    private static String describe(Throwable e) {
        StringBuilder s = new StringBuilder(String.valueOf(e.getMessage()));
        for (Throwable c = e.getCause(); c != null && c != c.getCause(); c = c.getCause()) {
            String m = c.getMessage();
            if (m == null || !s.toString().contains(m)) s.append(" (").append(c).append(')');
        }
        return s.toString();
    }

    @Override
    public void close() {
        try {
            requests.close();
        } finally {
            background.close();
        }
    }
}
