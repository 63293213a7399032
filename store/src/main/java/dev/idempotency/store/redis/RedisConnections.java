package dev.idempotency.store.redis;

import dev.idempotency.store.OwnershipToken;
import dev.idempotency.store.StoreException;
import dev.idempotency.store.StoreSettings;
import dev.idempotency.store.StoreUnavailableException;
import dev.idempotency.store.redis.ClusterPools.NodeUnreachable;
import org.apache.commons.pool2.impl.GenericObjectPoolConfig;
import redis.clients.jedis.Connection;
import redis.clients.jedis.DefaultJedisClientConfig;
import redis.clients.jedis.HostAndPort;
import redis.clients.jedis.Jedis;
import redis.clients.jedis.JedisClientConfig;
import redis.clients.jedis.JedisPool;
import redis.clients.jedis.JedisSentinelPool;
import redis.clients.jedis.exceptions.JedisMovedDataException;
import redis.clients.jedis.exceptions.JedisConnectionException;
import redis.clients.jedis.exceptions.JedisDataException;
import redis.clients.jedis.exceptions.JedisException;
import redis.clients.jedis.exceptions.JedisRedirectionException;

import javax.net.ssl.SSLParameters;
import java.time.Duration;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;

/**
 * The store's connections: a request pool of {@code pool-size} and a background pool of two (heartbeat renewals,
 * sweep, purge, operators), so a busy request path never starves the heartbeat; in a Cluster, pools of that size per
 * node. Every piece of work names the key whose slot it touches, so that in a Cluster it runs on that slot's master.
 * Connecting waits at most the connect timeout, for a free connection too; a command's answer at most the query
 * timeout. Every client failure becomes a {@link StoreException} ({@link RedisFailures}): {@link
 * StoreUnavailableException} when the server is away, slow or refusing writes.
 */
final class RedisConnections implements AutoCloseable {
    private static final int BACKGROUND_POOL_SIZE = 2;
    /** MOVED followed for one piece of work; a migrating slot is waited for up to the query timeout. */
    private static final int MAX_REDIRECTIONS = 5;

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

    /** No connection to the node: nothing was sent. Internal to {@link #run}. */
    private static final class NoConnection extends RuntimeException {
        private static final long serialVersionUID = 1L;

        NoConnection(JedisException cause) {
            super(cause);
        }
    }

    /** A Cluster's answer that the work belongs elsewhere, or must wait for a slot's migration: nothing ran. */
    private static final class Redirected extends RuntimeException {
        private static final long serialVersionUID = 1L;

        Redirected(JedisDataException cause) {
            super(cause);
        }
    }

    private final RedisEndpoint endpoint;
    private final RedisFailures failures;
    private final long queryTimeoutNanos;
    private final RedisNodes requests;
    private final RedisNodes background;

    RedisConnections(RedisEndpoint endpoint, StoreSettings settings) {
        this.endpoint = endpoint;
        this.failures = new RedisFailures(endpoint);
        this.queryTimeoutNanos = settings.queryTimeout().toNanos();
        JedisClientConfig client = clientConfig(endpoint, settings.connectTimeout(), settings.queryTimeout());
        this.requests = nodes(endpoint, settings.poolSize(), settings, client);
        try {
            this.background = nodes(endpoint, BACKGROUND_POOL_SIZE, settings, client);
        } catch (RuntimeException e) {
            requests.close();
            throw e;
        }
    }

    /**
     * Connections to the server, to the master the sentinels name now (such a pool follows the sentinels'
     * announcements of a new master and then drops the connections to the old one), or to a Cluster's nodes. Asking
     * the sentinels or the seed nodes happens here, so a store none of them answers for does not open.
     */
    private static RedisNodes nodes(RedisEndpoint endpoint, int size, StoreSettings settings,
            JedisClientConfig client) {
        if (endpoint.cluster()) {
            Set<HostAndPort> seeds = new LinkedHashSet<>();
            for (String[] s : endpoint.clusterSeeds) seeds.add(new HostAndPort(s[0], Integer.parseInt(s[1])));
            try {
                return new ClusterPools(seeds, client, poolConfig(size, settings.connectTimeout()));
            } catch (JedisException e) {
                throw new StoreUnavailableException("idempotency store (" + endpoint + ") unavailable: no seed node "
                        + "told the Cluster's slots: " + RedisFailures.describe(e), e);
            }
        }
        if (!endpoint.viaSentinel()) {
            HostAndPort server = new HostAndPort(endpoint.host, endpoint.port);
            return new ServerPool(new JedisPool(poolConfig(size, settings.connectTimeout()), server, client),
                    () -> server);
        }
        Set<HostAndPort> sentinels = new LinkedHashSet<>();
        for (String[] s : endpoint.sentinels) sentinels.add(new HostAndPort(s[0], Integer.parseInt(s[1])));
        // Sentinels are asked without the master's credentials or database: they have their own, and no databases.
        DefaultJedisClientConfig.Builder asking = DefaultJedisClientConfig.builder()
                .connectionTimeoutMillis((int) settings.connectTimeout().toMillis())
                .socketTimeoutMillis((int) settings.queryTimeout().toMillis()).clientName("idempotency-store");
        if (endpoint.tls) asking.ssl(true).sslParameters(checkedHostName());
        try {
            JedisSentinelPool pool = new JedisSentinelPool(endpoint.masterName, sentinels,
                    poolConfig(size, settings.connectTimeout()), client, asking.build());
            return new ServerPool(pool, pool::getCurrentHostMaster);
        } catch (JedisException e) {
            throw new StoreUnavailableException("idempotency store (" + endpoint + ") unavailable: no sentinel named "
                    + "the master '" + endpoint.masterName + "': " + RedisFailures.describe(e), e);
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

    private static <C> GenericObjectPoolConfig<C> poolConfig(int size, Duration connectTimeout) {
        GenericObjectPoolConfig<C> config = new GenericObjectPoolConfig<>();
        config.setMaxTotal(size);
        config.setMaxIdle(size);
        config.setMinIdle(0);
        config.setBlockWhenExhausted(true);
        config.setMaxWait(connectTimeout);
        // several stores in one JVM (and the agent's isolated loader) must not clash on names
        config.setJmxEnabled(false);
        return config;
    }

    boolean cluster() {
        return requests.cluster();
    }

    /** Work on the connection to the master of {@code key}'s slot. */
    <T> T request(String operation, byte[] key, Work<T> work) {
        return run(requests, operation, key, null, (redis, repeated) -> work.on(redis));
    }

    <T> T request(String operation, byte[] key, RepeatableWork<T> work) {
        return run(requests, operation, key, null, work);
    }

    /**
     * A write that may give {@code token} a key: if its answer is lost, the failure carries the token
     * ({@link StoreUnavailableException#possiblyReserved()}).
     */
    <T> T reserving(OwnershipToken token, byte[] key, Work<T> work) {
        return run(requests, "reserve", key, token, (redis, repeated) -> work.on(redis));
    }

    <T> T background(String operation, byte[] key, Work<T> work) {
        return run(background, operation, key, null, (redis, repeated) -> work.on(redis));
    }

    /** The masters now: the one server, or each master of a Cluster. */
    List<HostAndPort> masters(String operation) {
        try {
            return background.masters();
        } catch (JedisException e) {
            throw new StoreUnavailableException("idempotency store (" + endpoint + ") unavailable: cannot tell its "
                    + "masters for " + operation + ": " + RedisFailures.describe(e), e);
        }
    }

    /** Work on one master ({@link #masters}), on a background connection; only reads, so tried once. */
    <T> T onMaster(String operation, HostAndPort master, Work<T> work) {
        Route route = new Route(null);
        route.node = master;
        try {
            return attempt(background, operation, route, null, (redis, repeated) -> work.on(redis), false);
        } catch (BrokenConnection | Redirected | NoConnection e) {
            throw new StoreUnavailableException("idempotency store (" + endpoint + ") unavailable during " + operation
                    + " on " + master + ": " + RedisFailures.describe(e.getCause()), e.getCause());
        }
    }

    int requestConnectionsInUse() {
        return requests.inUse();
    }

    /** The request pools' connections closed so far, per node: for tests. */
    java.util.Map<String, Long> requestConnectionsClosed() {
        return requests.connectionsClosed();
    }

    /** Where the next attempt goes: the master of the key's slot, or the node a MOVED named. */
    private static final class Route {
        final byte[] key;
        HostAndPort node;

        Route(byte[] key) {
            this.key = key;
        }
    }

    /**
     * Once, and once more on a new connection when the server had closed the one lent (a restart, a failover, an idle
     * timeout, {@code CLIENT KILL}): the pool's other idle connections are then most likely closed too, and are
     * dropped, so that one failure costs one retry, not one 503 per pooled connection (in a Cluster, the slot map is
     * learnt again too: the master may have gone for good). A connection that timed out is not retried: the server
     * may be busy, and the caller must hear so within the query timeout. The work is sent again with {@code repeated}
     * set: a reservation then finds its own token, a completion its own response. In a Cluster, a MOVED is followed
     * to the master it names, and a migrating slot waited for, within the query timeout.
     */
    private <T> T run(RedisNodes nodes, String operation, byte[] key, OwnershipToken writing,
            RepeatableWork<T> work) {
        Route route = new Route(key);
        boolean repeated = false;
        boolean reconnected = false;
        int redirections = 0;
        int waits = 0;
        long deadline = System.nanoTime() + queryTimeoutNanos;
        while (true) {
            try {
                return attempt(nodes, operation, route, writing, work, repeated);
            } catch (BrokenConnection broken) {
                if (reconnected) throw failures.unavailable(operation, (JedisException) broken.getCause(), writing);
                reconnected = true;
                repeated = true;
                nodes.dropIdle(route.key, route.node);
                nodes.relearnSlots(Math.max(0, deadline - System.nanoTime()));
                if (System.nanoTime() - deadline > 0) {
                    throw failures.unavailable(operation, (JedisException) broken.getCause(), writing);
                }
                route = new Route(key);
            } catch (NoConnection none) {
                // In a Cluster, its master may have gone and a replica been promoted: learn the map, try once more;
                // not for a pool with no free connection (busy, not gone), nor a node just found away.
                // Sent before on a connection that broke: the first sending may have gone in.
                JedisException cause = (JedisException) none.getCause();
                if (reconnected || !nodes.cluster() || RedisFailures.poolExhausted(cause)
                        || cause instanceof NodeUnreachable) {
                    throw failures.cannotConnect(operation, none.getCause(), repeated ? writing : null);
                }
                reconnected = true;
                nodes.relearnSlots(Math.max(0, deadline - System.nanoTime()));
                route = new Route(key);
            } catch (Redirected r) {
                JedisDataException answer = (JedisDataException) r.getCause();
                if (!nodes.cluster()) {
                    throw new StoreUnavailableException("idempotency store (" + endpoint + ") refused " + operation
                            + ": " + answer.getMessage() + " (the server is a node of a Redis Cluster: name its "
                            + "nodes in a redis-cluster:// URL)", answer, writing);
                }
                boolean moved = answer instanceof JedisMovedDataException;
                if (moved && ++redirections > MAX_REDIRECTIONS || System.nanoTime() - deadline > 0) {
                    throw new StoreUnavailableException("idempotency store (" + endpoint + ") unavailable during "
                            + operation + ": " + (moved ? "the Cluster still redirects after " + MAX_REDIRECTIONS
                            + " redirections" : "the slot still migrates") + ": " + answer.getMessage(), answer,
                            writing);
                }
                route = new Route(key);
                if (moved) {
                    route.node = ((JedisMovedDataException) answer).getTargetNode();
                    nodes.relearnSlots(0);
                } else {
                    // A migrating slot (TRYAGAIN, ASK, a script stopped at a key not here): wait, the move goes on.
                    LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(Math.min(50, 1L << Math.min(++waits, 6))));
                }
                repeated = true; // the answer may have come after some of the work ran
            } catch (StoreException e) {
                // Sent before on a connection that broke, or redirected after part of it ran: the first sending may
                // have gone in, whatever became of this one.
                if (writing == null || !repeated || e instanceof StoreUnavailableException
                        && ((StoreUnavailableException) e).possiblyReserved() != null) {
                    throw e;
                }
                throw new StoreUnavailableException(e.getMessage(), e.getCause(), writing);
            }
        }
    }

    private <T> T attempt(RedisNodes nodes, String operation, Route route, OwnershipToken writing,
            RepeatableWork<T> work, boolean repeated) {
        Jedis redis;
        try {
            redis = route.node != null ? nodes.borrow(route.node) : nodes.borrow(route.key);
        } catch (JedisException e) {
            throw new NoConnection(e);
        }
        try (Jedis borrowed = redis) {
            return work.on(borrowed, repeated);
        } catch (JedisRedirectionException e) {
            throw new Redirected(e);
        } catch (JedisDataException e) {
            if (nodes.cluster() && RedisFailures.inMigration(String.valueOf(e.getMessage()))) throw new Redirected(e);
            throw failures.refused(operation, e);
        } catch (JedisConnectionException e) {
            if (!RedisFailures.timedOut(e)) throw new BrokenConnection(e);
            throw failures.unavailable(operation, e, writing);
        } catch (JedisException e) {
            throw failures.unavailable(operation, e, writing);
        }
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
